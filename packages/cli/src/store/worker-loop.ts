import { SwitchyardError } from '@switchyard/core';

/** Options of `switchyard worker`. */
export interface WorkerOptions {
  store?: string;
  workspace?: string;
  executionCatalog?: string;
  maxParallel?: number;
  untilIdle?: boolean;
  json?: boolean;
}

const IDLE_LOOK_MS = 3_000;

/**
 * `switchyard worker`: rounds of "write the backlog's open tasks into this clone, run the
 * dispatcher on the shared store until they are archived or blocked", then wait for new open
 * tasks (`--until-idle`: look again at once, and end when none is open or a round moved none).
 * A round's exit code other than 0 or 3 ends it.
 */
export async function runWorker(opts: WorkerOptions): Promise<number> {
  const { findWorkspaceRoot } = await import('@switchyard/utils');
  const configLib = await import('@switchyard/config');
  const workspace = findWorkspaceRoot({
    ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
    isMarker: configLib.hasConfigFile,
    requireTasks: false,
  });
  const { resolveStore } = await import('./resolve-store.js');
  const setting = await resolveStore({
    workspace,
    ...(opts.store !== undefined ? { store: opts.store } : {}),
  });
  if (setting.kind !== 'postgres')
    throw new SwitchyardError(
      'SY_USAGE',
      'switchyard worker works on a shared backlog, and no shared store is selected.',
      {
        hint: 'Name one: --store postgres://USER@HOST/DATABASE, SWITCHYARD_STORE, or config `store`.',
      },
    );
  const { openSharedStore } = await import('./shared-backlog.js');
  const { materializeBacklog } = await import('./materialize-backlog.js');
  const { liveRun } = await import('../live-run.js');
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    let last = 0;
    let before = '';
    for (;;) {
      const shared = await openSharedStore(workspace, setting);
      const open = await materializeBacklog(workspace, shared).finally(() => shared.store.close());
      // --until-idle: tasks published while a round ran get a round of their own; the worker
      // ends when none is open, or when a round moved none of them (blocked behind a blocked
      // task: they wait for a human, and another round would find them the same).
      const now = [...open].sort().join(',');
      if (opts.untilIdle && (open.size === 0 || now === before)) return last;
      before = now;
      if (open.size > 0) {
        last = await liveRun({
          workspace,
          store: setting.url,
          ...(opts.executionCatalog ? { executionCatalog: opts.executionCatalog } : {}),
          ...(opts.maxParallel !== undefined ? { maxParallel: opts.maxParallel } : {}),
          ...(opts.json ? { json: true } : {}),
        });
        if (last !== 0 && last !== 3) return last;
      }
      if (stopped) return 130;
      if (opts.untilIdle) continue;
      await new Promise((r) => setTimeout(r, IDLE_LOOK_MS));
      if (stopped) return 130;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
