import { SwitchyardError } from '@switchyard/core';
import type { BacklogQueue } from './backlog-queue.js';
import type { BacklogTask } from './backlog-types.js';
import { type Client, transaction } from './db.js';

/** What publishing did with one task. */
export interface PublishOutcome {
  task: string;
  outcome: 'published' | 'existing';
}

/**
 * Publishes tasks in one transaction, all or none. A task already there with the same plan
 * hash is the same task (`existing`, unchanged whatever its status); with another hash the
 * whole publish is refused with `SY_BACKLOG_CONFLICT` naming every such task.
 */
export async function publishToBacklog(
  q: BacklogQueue,
  tasks: readonly BacklogTask[],
  by: string,
): Promise<PublishOutcome[]> {
  const { ctx } = q;
  await q.ensure();
  return transaction(ctx.pool, async (client) => {
    // Before any row lock: a task published while its predecessor is archived is released by
    // whichever of the two commits second.
    await q.lockScope(client);
    const outcomes: PublishOutcome[] = [];
    const conflicts: string[] = [];
    for (const task of [...tasks].sort((a, b) => (a.task < b.task ? -1 : 1))) {
      const outcome = await publishOne(q, client, task, by);
      if (typeof outcome === 'string') outcomes.push({ task: task.task, outcome });
      else conflicts.push(outcome.conflict);
    }
    if (conflicts.length > 0)
      throw new SwitchyardError(
        'SY_BACKLOG_CONFLICT',
        `The shared backlog ${ctx.location} already has ${conflicts.length === 1 ? 'a task' : 'tasks'} of the same id with another plan: ${conflicts.join(', ')}; nothing was published.`,
        {
          hint: 'A published task is never changed under the machines working on it: give the new plan a new task id, or wait until the old task is archived and remove it from the backlog.',
        },
      );
    await q.deliver(client, await q.releasable(client));
    return outcomes;
  });
}

/** Inserts one task, or compares it with the task of its id already there (row locked). */
async function publishOne(
  q: BacklogQueue,
  client: Client,
  task: BacklogTask,
  by: string,
): Promise<PublishOutcome['outcome'] | { conflict: string }> {
  const { ctx } = q;
  const inserted = await client.query(
    `insert into ${ctx.s}.backlog (scope, task, plan_hash, depends_on, status, entry, published_by)
     values ($1, $2, $3, $4, 'waiting', $5, $6) on conflict do nothing`,
    [ctx.scope, task.task, task.planHash, task.dependsOn, JSON.stringify(task.payload ?? null), by],
  );
  if (inserted.rowCount === 1) return 'published';
  const existing = await q.lockRow(client, task.task);
  if (existing?.plan_hash === task.planHash) return 'existing';
  return {
    conflict: `${task.task} (backlog ${existing?.plan_hash.slice(0, 12)}, yours ${task.planHash.slice(0, 12)})`,
  };
}
