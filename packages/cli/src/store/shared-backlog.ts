import { createHash } from 'node:crypto';
import type { StoreSetting } from '@switchyard/config';
import { type SharedBacklogPort, SwitchyardError, type WorkspaceIsolation } from '@switchyard/core';
import type { RemoteBranch } from '@switchyard/git-isolation';
import type { PostgresStore } from '@switchyard/store-postgres';
import type { LoadedTask } from '@switchyard/tasks';
import { redactStoreUrl } from '@switchyard/utils';
import { adoptEarlierBacklog, backlogScopeOf } from './backlog-scope.js';

/** A run's link to a shared (PostgreSQL) store: the store, its backlog, the remote branch. */
export interface SharedStore {
  store: PostgresStore;
  backlog: SharedBacklogPort;
  target: RemoteBranch;
  leaseMs: number;
  /** The backlog's scope: the remote's canonical URL and the branch (`host/o/r#main`). */
  scope: string;
}

/**
 * Opens the shared store for the workspace's backlog: the scope is the canonical remote URL
 * and the branch of the checked-out branch's upstream, so every clone of one repository that
 * lands on that branch shares one backlog, whichever way its remote URL is spelled. A backlog
 * an earlier switchyard named by the raw URL moves to that scope (see `adoptEarlierBacklog`).
 * `SY_STORE_SCOPE` outside a git clone with an upstream; the store's own errors otherwise.
 */
export async function openSharedStore(
  workspace: string,
  setting: Extract<StoreSetting, { kind: 'postgres' }>,
): Promise<SharedStore> {
  const { remoteBranchOf } = await import('@switchyard/git-isolation');
  const target = await remoteBranchOf(workspace);
  if (!target)
    throw new SwitchyardError(
      'SY_STORE_SCOPE',
      `${workspace} is not a git clone whose checked-out branch has an upstream, so it cannot share the backlog of the store ${redactStoreUrl(setting.url)}.`,
      {
        hint: 'Clone the shared repository (`git clone URL`) and run there, or set the upstream with `git branch --set-upstream-to=origin/<branch>`; without --store (and SWITCHYARD_STORE) the run uses the file store of this machine.',
      },
    );
  const scope = await backlogScopeOf(target);
  const { openPostgresStore } = await import('@switchyard/store-postgres');
  // Room for the LISTEN connection, pg-boss, lease renewals and the stages' writes at once.
  const store = await openPostgresStore({ url: setting.url, scope, poolSize: 10 });
  try {
    const pg = await store.backlog();
    const moved = await adoptEarlierBacklog(pg, target, scope, store.pgLocation.schema);
    if (moved)
      process.stderr.write(
        `switchyard: the backlog ${moved.from} (named by an earlier switchyard) is now ${scope} (${moved.rows} records moved)\n`,
      );
    const backlog: SharedBacklogPort = {
      take: async (holder, ttlMs) => {
        const delivery = await pg.take(holder, ttlMs);
        return delivery && { task: delivery.entry.task, lease: delivery.lease };
      },
      finish: (task, status, fence, archive) => pg.finish(task, status, fence, archive),
      requeue: (task, fence, afterSeconds) => pg.requeue(task, fence, afterSeconds),
      list: async () =>
        (await pg.list()).map((entry) => ({
          task: entry.task,
          status: entry.status,
          dependsOn: entry.dependsOn,
          ...(entry.holder ? { holder: entry.holder } : {}),
          ...(entry.leaseExpired ? { leaseExpired: entry.leaseExpired } : {}),
          ...(entry.archive ? { archive: entry.archive } : {}),
        })),
      watch: (onChange) => pg.watch(onChange),
    };
    return { store, backlog, target, leaseMs: setting.leaseSeconds * 1000, scope };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * Publishes the run's tasks (valid, in scope) to the shared backlog: id, a hash of its plan
 * files (the same id and hash is the same task, whichever machine publishes it), its
 * dependencies among the workspace's active tasks, and its plan files as payload. A task of
 * the same id with other plans is `SY_BACKLOG_CONFLICT` (nothing published).
 */
export async function publishTasks(
  shared: SharedStore,
  tasks: readonly LoadedTask[],
  taskGroup: string | undefined,
  by: string,
): Promise<{ published: number; existing: number }> {
  const active = new Set(tasks.map((t) => t.id));
  const chosen = tasks.filter((t) => t.valid && (!taskGroup || t.group === taskGroup));
  const pg = await shared.store.backlog();
  const outcomes = await pg.publish(
    chosen.map((task) => ({
      task: task.id,
      planHash: planHashOf(task),
      dependsOn: task.dependsOn.map((d) => d.id).filter((id) => active.has(id)),
      payload: { group: task.group, plans: task.planTexts ?? [] },
    })),
    by,
  );
  return {
    published: outcomes.filter((o) => o.outcome === 'published').length,
    existing: outcomes.filter((o) => o.outcome === 'existing').length,
  };
}

/** SHA-256 of a task's plan files, in loop order. */
export function planHashOf(task: LoadedTask): string {
  const hash = createHash('sha256');
  for (const plan of task.planTexts ?? []) hash.update(`${plan.loop}\0${plan.text}\0`);
  return hash.digest('hex');
}

/**
 * The remote branch's apply turn, shared by every machine: a lease on `~apply/<branch>` in
 * the store (renewed while the apply runs, so a machine that dies or freezes loses it after
 * the lease time and the others go on; a frozen one's late push is refused as not fast-forward).
 */
export function remoteApplyTurn(shared: SharedStore, holder: string) {
  const key = `~apply/${shared.target.branch}`;
  const ttl = shared.leaseMs;
  return async <T>(fn: () => Promise<T>, stop?: AbortSignal): Promise<T | undefined> => {
    for (;;) {
      const result = await shared.store.leases.acquire(key, holder, ttl);
      if (result.ok) {
        let lease = result.lease;
        const timer = setInterval(() => {
          void shared.store.leases
            .renew([lease], ttl)
            .then(([next]) => {
              if (next) lease = next;
            })
            .catch(() => undefined);
        }, ttl / 3);
        try {
          return await fn();
        } finally {
          clearInterval(timer);
          await shared.store.leases.release(lease).catch(() => undefined);
        }
      }
      if (stop?.aborted) return undefined;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
}

/** The run's isolation landing on the shared remote branch (see `landOnRemote`). */
export async function sharedIsolation(
  isolation: WorkspaceIsolation,
  shared: SharedStore,
  holder: string,
): Promise<WorkspaceIsolation> {
  const { landOnRemote } = await import('@switchyard/git-isolation');
  return landOnRemote(isolation, {
    target: shared.target,
    exclusive: remoteApplyTurn(shared, holder),
  });
}
