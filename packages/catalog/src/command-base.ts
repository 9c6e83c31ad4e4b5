import { dirname, isAbsolute, resolve } from 'node:path';
import type { Catalog, CatalogRuntime } from './schema.js';

/**
 * The one folder a relative command path of a catalog (`./bin/agent`, `tools/agent`) resolves
 * from: the folder of the catalog file — for a catalog inline in the project config, the
 * config file's folder. Never the process's working directory, and never the task worktree an
 * agent runs in: `catalog validate`, `run`, `--dry-run` and the spawn all see the same file.
 */
export function commandBaseOf(catalogFile: string | undefined, fallback: string): string {
  return catalogFile ? dirname(catalogFile) : fallback;
}

/** True for a command written as a relative path (has a `/`, not absolute, not `~/`). */
export function isRelativeCommandPath(command: string): boolean {
  return command.includes('/') && !isAbsolute(command) && !command.startsWith('~/');
}

/** `command` as an absolute path when it is a relative path; a bare name or absolute path as is. */
export function absoluteCommand(command: string, base: string): string {
  return isRelativeCommandPath(command) ? resolve(base, command) : command;
}

const COMMAND_FIELDS = ['command', 'resume_command', 'preflight_command'] as const;

/**
 * The catalog with `argv[0]` of every command field made absolute from `base` (see
 * {@link commandBaseOf}); everything else is unchanged. A new catalog, the input is left alone.
 */
export function anchorRelativeCommands(catalog: Catalog, base: string): Catalog {
  let changed = false;
  const targets: Catalog['targets'] = {};
  for (const [id, target] of Object.entries(catalog.targets)) {
    const runtime: CatalogRuntime = { ...target.runtime };
    for (const field of COMMAND_FIELDS) {
      const argv = runtime[field];
      const first = argv?.[0];
      if (!argv || first === undefined || !isRelativeCommandPath(first)) continue;
      runtime[field] = [absoluteCommand(first, base), ...argv.slice(1)] as typeof argv;
      changed = true;
    }
    targets[id] = { ...target, runtime };
  }
  return changed ? { ...catalog, targets } : catalog;
}
