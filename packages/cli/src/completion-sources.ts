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

export type SourceName = keyof CompletionSources;

/** Sources that answer nothing and note which of them were asked (a completion's first pass). */
export function demandedSources(asked: Set<SourceName>): CompletionSources {
  const noting = (name: SourceName) => () => {
    asked.add(name);
    return [];
  };
  return {
    tasks: noting('tasks'),
    blockedTasks: noting('blockedTasks'),
    groups: noting('groups'),
    sessions: noting('sessions'),
    targets: noting('targets'),
  };
}

/** What `read` answers, or `fallback` when it throws. */
const quietly = async <T>(read: () => T | Promise<T>, fallback: T): Promise<T> => {
  try {
    return await read();
  } catch {
    return fallback;
  }
};

/**
 * The sources of the workspace around `cwd`, reading only the `wanted` ones (the stored ones
 * through the store opened for reading, which creates nothing); `withTargets` reads the
 * catalog when targets are wanted.
 */
export async function loadSources(
  cwd: string,
  withTargets: boolean,
  wanted: ReadonlySet<SourceName>,
): Promise<CompletionSources> {
  const { searchWorkspaceRoot } = await import('@switchyard/utils');
  const configLib = await import('@switchyard/config');
  const root = searchWorkspaceRoot(cwd, configLib.hasConfigFile).root ?? cwd;
  const scan =
    wanted.has('tasks') || wanted.has('groups')
      ? await quietly(
          async () => (await import('@switchyard/tasks')).scanWorkspace(root),
          undefined,
        )
      : undefined;
  const reader =
    wanted.has('blockedTasks') || wanted.has('sessions')
      ? await quietly(
          async () => (await import('@switchyard/store-fs/read')).openFsReader({ workspace: root }),
          undefined,
        )
      : undefined;
  const tasks = scan?.tasks.map((t) => t.id) ?? [];
  const groups = scan?.groups ?? [];
  const blockedTasks =
    reader && wanted.has('blockedTasks')
      ? await quietly(
          async () =>
            (await reader.tasks.list()).filter((s) => s.value.blocked).map((s) => s.value.task),
          [],
        )
      : [];
  const sessions =
    reader && wanted.has('sessions')
      ? await quietly(async () => (await reader.sessions.ids()).reverse(), [])
      : [];
  const targets =
    withTargets && wanted.has('targets')
      ? await configLib
          .resolveCatalog({ cwd: root, checkExecutables: false })
          .then((c) => Object.keys(c.catalog.targets))
          .catch((): string[] => [])
      : [];
  return {
    tasks: () => tasks,
    blockedTasks: () => blockedTasks,
    groups: () => groups,
    sessions: () => sessions,
    targets: () => targets,
  };
}
