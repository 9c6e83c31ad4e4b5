// The errors subpath: start-up does not load the rest of core.
import { SwitchyardError, type SwitchyardErrorCode } from '@switchyard/core/errors';

/** Documented exit codes of every `switchyard` command. */
export const EXIT = {
  /** All in-scope work archived complete, or nothing wrong found. */
  OK: 0,
  /** Internal or control-plane failure (including a held workspace lock). */
  FAILURE: 1,
  /** Invalid input (flags, config, catalog, plan); nothing was launched. */
  INVALID_INPUT: 2,
  /** The run ended with blocked tasks. */
  BLOCKED: 3,
  /** Interrupted by SIGINT/SIGTERM. */
  INTERRUPTED: 130,
} as const;

const INVALID_INPUT_CODES = new Set<SwitchyardErrorCode>([
  'SY_USAGE',
  'SY_CONFIG_INVALID',
  'SY_CATALOG_NOT_FOUND',
  'SY_CATALOG_PARSE',
  'SY_CATALOG_INVALID',
  'SY_CATALOG_NOT_EXECUTABLE',
  'SY_PREFLIGHT_FAILED',
  'SY_PREFLIGHT_GIT_IDENTITY',
  'SY_PREFLIGHT_NO_COMMIT',
  'SY_PREFLIGHT_DETACHED_HEAD',
  'SY_PREFLIGHT_NO_UPSTREAM',
  'SY_PREFLIGHT_DIRTY_WRITE_SET',
  'SY_PREFLIGHT_DISK_SPACE',
  'SY_SANDBOX_UNAVAILABLE',
  'SY_PLAN_INVALID',
  'SY_YAML_PLAN_INVALID',
  'SY_GRAPH_INVALID',
  'SY_WORKSPACE_NOT_FOUND',
  'SY_UNKNOWN_GROUP',
  'SY_PLUGIN_LOAD',
  'SY_PLUGIN_NOT_FOUND',
  'SY_PLUGIN_DUPLICATE',
  'SY_UNSAFE_PATH',
]);

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown): number {
  if (SwitchyardError.is(error) && INVALID_INPUT_CODES.has(error.code)) return EXIT.INVALID_INPUT;
  return EXIT.FAILURE;
}
