import type { Fence, TaskId } from '@switchyard/core';
import { BACKLOG_CHANNEL, type BacklogQueue, entryOf } from './backlog-queue.js';
import type { BacklogEntry } from './backlog-types.js';
import { checkFence } from './context.js';
import { transaction } from './db.js';

/**
 * Records a task's end (fenced: only its current holder may), with the archive folder's
 * files for the other machines to materialize. Archiving delivers every waiting task whose
 * predecessors are now all archived, in the same transaction (under the scope's lock, so two
 * machines archiving a task's last predecessors at once do not both miss it); a blocked task
 * keeps its dependents waiting.
 */
export function finishInBacklog(
  q: BacklogQueue,
  task: TaskId,
  status: 'archived' | 'blocked',
  fence: Fence,
  archive?: Record<string, string>,
): Promise<void> {
  const { ctx } = q;
  return transaction(ctx.pool, async (client) => {
    // Before any row lock: one archive of the scope at a time releases dependents.
    if (status === 'archived') await q.lockScope(client);
    // The task's row before its lease row, as `take` locks them (the other order deadlocks).
    await q.lockRow(client, task);
    await checkFence(ctx, client, fence);
    await client.query(
      `update ${ctx.s}.backlog set status = $3, updated_at = now(),
         archive = coalesce($4::jsonb, archive) where scope = $1 and task = $2`,
      [ctx.scope, task, status, archive ? JSON.stringify(archive) : null],
    );
    await q.deliver(client, status === 'archived' ? await q.releasable(client) : []);
    await client.query('select pg_notify($1, $2)', [BACKLOG_CHANNEL, ctx.scope]);
  });
}

/**
 * Gives a taken task back (its write set is claimed by another task, this machine is
 * stopping): releases the lease and delivers the task again after `afterSeconds`. Fenced.
 */
export function requeueInBacklog(
  q: BacklogQueue,
  task: TaskId,
  fence: Fence,
  afterSeconds = 0,
): Promise<void> {
  const { ctx } = q;
  return transaction(ctx.pool, async (client) => {
    await q.lockRow(client, task);
    await checkFence(ctx, client, fence);
    await client.query(
      `update ${ctx.s}.leases set released = true where scope = $1 and task = $2 and token = $3`,
      [ctx.scope, task, fence.token],
    );
    await client.query(
      `update ${ctx.s}.backlog set status = 'ready', updated_at = now() where scope = $1 and task = $2`,
      [ctx.scope, task],
    );
    await q.deliver(client, [task], afterSeconds);
  });
}

/**
 * A human's answer on a task (`switchyard resolve`, `retry`), with the task's row locked:
 * `decide` gets the entry and the holder whose lease on the task is live (if any), makes
 * its own changes, may throw to refuse, and returns whether a `blocked` task is to be
 * delivered again (`ready`). Returns the entry as it was, or undefined for a task the
 * backlog lacks (`decide` is not called).
 */
export function reopenInBacklog(
  q: BacklogQueue,
  task: TaskId,
  decide: (entry: BacklogEntry, liveHolder: string | undefined) => Promise<boolean>,
): Promise<BacklogEntry | undefined> {
  const { ctx } = q;
  return transaction(ctx.pool, async (client) => {
    const row = await q.lockRow(client, task);
    if (!row) return undefined;
    const at = await ctx.now(client);
    const { rows } = await client.query<{ holder: string; live: boolean }>(
      `select holder, not released and expires_at > $3 as live from ${ctx.s}.leases
       where scope = $1 and task = $2`,
      [ctx.scope, task, at],
    );
    const lease = rows[0];
    const entry = entryOf({ ...row, holder: lease?.holder ?? null });
    const live = lease?.live ? lease.holder : undefined;
    if (!(await decide(entry, live)) || row.status !== 'blocked') return entry;
    await client.query(
      `update ${ctx.s}.backlog set status = 'ready', updated_at = now() where scope = $1 and task = $2`,
      [ctx.scope, task],
    );
    await q.deliver(client, [task]);
    return entry;
  });
}
