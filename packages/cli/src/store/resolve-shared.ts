import { userInfo } from 'node:os';
import type { StoreSetting } from '@switchyard/config';
import { parseLeaseHolder, type ResolutionAction, SwitchyardError } from '@switchyard/core';
import { type CatalogFacts, liftBlock, type ResolveOutcome } from '@switchyard/engine';
import { isOpen } from '@switchyard/store-fs';
import type { SharedStore } from './shared-backlog.js';

/** `resolve`/`retry` on a shared store: what was done, and the machine that last held the task. */
export interface SharedResolveOutcome extends ResolveOutcome {
  /** The machine that last ran the task (`<host> pid <pid>`), when one did. */
  machine?: string;
}

/** A lease holder as `status --store` names a machine. */
export function machineOf(holder: string): string {
  const who = parseLeaseHolder(holder);
  return who ? `${who.host} pid ${who.pid}` : holder;
}

/**
 * `switchyard resolve --retry|--skip` (and `retry`) on the shared backlog: the task's record in
 * the database changes under the rules of one machine (a blocked task only; `skip` needs an
 * open escalation; `retry` a fresh budget, the plan read again), with the backlog row locked.
 * A task another machine runs under a live lease is refused with `SY_TASK_HELD` naming it.
 * A retried task is delivered again: a dispatcher of any machine takes it.
 */
export async function resolveShared(
  shared: SharedStore,
  task: string,
  action: ResolutionAction,
  catalogFacts?: CatalogFacts,
): Promise<SharedResolveOutcome> {
  if (action === 'done')
    throw new SwitchyardError(
      'SY_USAGE',
      `resolve --done records a task archived by hand in this clone, which the shared backlog ${shared.store.location} cannot check.`,
      {
        hint: 'On a shared store answer with --retry or --skip; to record a hand-made archive, run `switchyard resolve --done` without --store where the run blocked.',
      },
    );
  const { store } = shared;
  const pg = await store.backlog();
  let outcome: SharedResolveOutcome | undefined;
  const entry = await pg.reopen(task, async (entry, live) => {
    if (live)
      throw new SwitchyardError(
        'SY_TASK_HELD',
        `Task ${task} is being run by ${machineOf(live)} (its lease on the shared backlog is live); it cannot be resolved or retried meanwhile.`,
        {
          hint: 'Wait until it ends there (`switchyard status --store` shows it), or stop that run (Ctrl-C on that machine), then try again.',
        },
      );
    const stored = await store.tasks.get(task);
    const state = stored?.value;
    const machine = entry.holder ? { machine: machineOf(entry.holder) } : {};
    if (!stored || !state?.blocked || entry.status !== 'blocked')
      throw new SwitchyardError(
        'SY_USAGE',
        `Task ${task} is not blocked (${entry.status} in the shared backlog${entry.holder ? `, last on ${machineOf(entry.holder)}` : ''}); nothing to resolve.`,
        { hint: '`switchyard status --store` lists every task of the backlog and its machine.' },
      );
    const escalation = await store.escalations.get(task);
    const open = escalation !== undefined && isOpen(escalation.bundle, state);
    if (action === 'skip' && !open)
      throw new SwitchyardError('SY_USAGE', `Task ${task} has no open escalation to skip.`, {
        hint: '`switchyard status --store` lists the backlog; `switchyard retry --store <task>` still retries it.',
      });
    const blocked = state.blocked;
    if (action === 'retry') liftBlock(task, state, catalogFacts);
    // The answer is recorded first, as on one machine: a crash before the state write leaves
    // the task blocked with a closed escalation, which `retry` still lifts.
    if (escalation) await store.escalations.resolve(task, action, new Date(), userName());
    if (action === 'retry') await store.tasks.put(state, { expected: stored.version });
    outcome = { task, action, blocked, ...machine };
    return action === 'retry';
  });
  if (!entry)
    throw new SwitchyardError(
      'SY_USAGE',
      `Unknown task ${task}: the shared backlog ${shared.scope} has no such task.`,
      { hint: '`switchyard status --store` lists its tasks (name them as <group>/<task>).' },
    );
  return outcome!;
}

/** Opens the workspace's shared store for `setting` and runs `fn` on it, closing it after. */
export async function withSharedStore<T>(
  workspace: string,
  setting: Extract<StoreSetting, { kind: 'postgres' }>,
  fn: (shared: SharedStore) => Promise<T>,
): Promise<T> {
  const { openSharedStore } = await import('./shared-backlog.js');
  const shared = await openSharedStore(workspace, setting);
  try {
    return await fn(shared);
  } finally {
    await shared.store.close();
  }
}

function userName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/**
 * `switchyard retry <task>… --store`: each named task goes back to the shared backlog with a
 * fresh budget (as `resolve --retry`); the run that follows works on it with everyone else.
 */
export async function retryShared(
  workspace: string | undefined,
  setting: Extract<StoreSetting, { kind: 'postgres' }>,
  tasks: readonly string[],
  opts: { executionCatalog?: string; json?: boolean },
): Promise<void> {
  const { findWorkspaceRoot } = await import('@switchyard/utils');
  const configLib = await import('@switchyard/config');
  const engine = await import('@switchyard/engine');
  const { resolve } = await import('node:path');
  const root = findWorkspaceRoot({
    ...(workspace !== undefined ? { explicit: workspace } : {}),
    isMarker: configLib.hasConfigFile,
  });
  const catalog = await configLib.resolveCatalog({
    ...(opts.executionCatalog ? { flagPath: resolve(opts.executionCatalog) } : {}),
    cwd: root,
    checkExecutables: false,
  });
  const facts = {
    source: engine.catalogSourceLabel(catalog),
    revision: catalog.revision,
    targets: catalog.catalog.targets,
  };
  await withSharedStore(root, setting, async (shared) => {
    for (const task of tasks) {
      const outcome = await resolveShared(shared, task, 'retry', facts);
      if (!opts.json)
        process.stdout.write(
          `retry ${task}: back in the shared backlog with a fresh budget${outcome.machine ? ` (blocked on ${outcome.machine})` : ''}\n`,
        );
    }
  });
}
