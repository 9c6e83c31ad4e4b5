import {
  detachedHeadCheck,
  firstCommitCheck,
  gitIdentityCheck,
  upstreamCheck,
} from './git-checks.js';
import type { PreflightCheck } from './registry.js';
import { targetPreflightCheck } from './target-commands.js';
import { dirtyWriteSetCheck, freeDiskCheck } from './workspace-checks.js';

/**
 * What the run found out before the checks: a route none of whose candidates is installed,
 * a sandbox that cannot start here (`sandbox-check.ts`).
 */
const foundEarlierCheck: PreflightCheck = {
  name: 'agent-clis-and-sandbox',
  what: 'an installed agent CLI for every route and pin the tasks use, a usable sandbox',
  run: async (ctx) => [...ctx.foundProblems],
};

/**
 * Every check before a run, in the order their problems are listed. Adding a precondition
 * (a sandbox, a state store) is adding its check here; `run` and `run --dry-run` both use
 * this list (the dry run skips the `liveOnly` ones). Agent CLI versions are probed apart
 * (agent-versions.ts): they are warnings, and the attempts' evidence records them.
 */
export const PREFLIGHT_CHECKS: readonly PreflightCheck[] = [
  foundEarlierCheck,
  gitIdentityCheck,
  firstCommitCheck,
  detachedHeadCheck,
  upstreamCheck,
  dirtyWriteSetCheck,
  freeDiskCheck,
  targetPreflightCheck,
];
