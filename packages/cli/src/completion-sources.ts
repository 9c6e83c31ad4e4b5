/**
 * What the workspace holds when the TAB key is pressed: task, group, session and target ids
 * for `switchyard complete -- …`. Each read is best effort: a missing or broken workspace
 * completes nothing rather than printing an error into the shell.
 */
export interface CompletionSources {
  tasks: () => string[];
  blockedTasks: () => string[];
  groups: () => string[];
  sessions: () => string[];
  /** Catalog target ids (the catalog is read before completing, see {@link loadSources}). */
  targets: () => string[];
}

const quietly = <T>(read: () => T[]): T[] => {
  try {
    return read();
  } catch {
    return [];
  }
};

/** The sources of the workspace around `cwd`; `withTargets` reads the catalog first. */
export async function loadSources(cwd: string, withTargets: boolean): Promise<CompletionSources> {
  const core = await import('@switchyard/core');
  const { searchWorkspaceRoot } = await import('@switchyard/utils');
  const tasksLib = await import('@switchyard/tasks');
  const files = await import('@switchyard/store-fs');
  const configLib = await import('@switchyard/config');
  const root = searchWorkspaceRoot(cwd, configLib.hasConfigFile).root ?? cwd;
  const stateDir = core.stateDir(root);
  let scan: ReturnType<typeof tasksLib.scanWorkspace> | undefined;
  const scanned = () => {
    scan ??= tasksLib.scanWorkspace(root);
    return scan;
  };
  const targets = withTargets
    ? await configLib
        .resolveCatalog({ cwd: root, checkExecutables: false })
        .then((c) => Object.keys(c.catalog.targets))
        .catch(() => [])
    : [];
  return {
    tasks: () => quietly(() => scanned().tasks.map((t) => t.id)),
    blockedTasks: () =>
      quietly(() =>
        files
          .openStateStore(stateDir)
          .list()
          .filter((s) => s.blocked)
          .map((s) => s.task),
      ),
    groups: () => quietly(() => scanned().groups),
    sessions: () => quietly(() => new files.SessionStore(stateDir).ids().reverse()),
    targets: () => targets,
  };
}
