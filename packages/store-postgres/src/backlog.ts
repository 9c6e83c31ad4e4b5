import type { Fence, TaskId } from '@switchyard/core';
import type { PgBoss } from 'pg-boss';
import { publishToBacklog } from './backlog-publish.js';
import { BACKLOG_CHANNEL, type BacklogRow, backlogQueue, entryOf } from './backlog-queue.js';
import { finishInBacklog, reopenInBacklog, requeueInBacklog } from './backlog-settle.js';
import { takeFromBacklog } from './backlog-take.js';
import type { BacklogEntry, BacklogTask, Delivery } from './backlog-types.js';
import type { PgContext } from './context.js';
import { transientError } from './db.js';
import { listenLasting } from './pg-listen.js';
import { adoptScope, backlogScopes } from './rescope.js';

export { BACKLOG_CHANNEL } from './backlog-queue.js';

/**
 * The shared backlog of one scope. Rows hold each task, its dependencies and its status; pg-boss
 * delivers the tasks that are ready (every predecessor archived): one job per ready task
 * (`exclusive` policy keyed by task id), fetched by exactly one taker (SKIP LOCKED), redelivered
 * when a taker died before settling it. A taker turns a delivery into a lease in one
 * transaction with the job's completion; from then on the lease and its fencing token own the
 * task, and a holder that dies is found by its expired lease, not by pg-boss.
 */
export function pgBacklog(ctx: PgContext, boss: PgBoss) {
  const q = backlogQueue(ctx, boss);
  // What a dispatcher calls on every pass: a failure that passes is `SY_STORE_TRANSIENT`.
  const passing = <T>(operation: Promise<T>): Promise<T> =>
    operation.catch((error: unknown) => {
      throw transientError(error, ctx.location);
    });
  return {
    queue: q.queue,
    /** All or none; a task of the same id and another plan refuses the publish. */
    publish: (tasks: readonly BacklogTask[], by: string) => publishToBacklog(q, tasks, by),
    /** Every task, with its lease's holder; a taken task whose lease ended says so. */
    async list(): Promise<BacklogEntry[]> {
      const at = await passing(ctx.now(ctx.pool));
      const { rows } = await passing(
        ctx.pool.query<BacklogRow & { lease_ended: boolean }>(
          `select b.*, l.holder,
             b.status = 'taken' and (l.released or l.expires_at <= $2) as lease_ended
           from ${ctx.s}.backlog b
           left join ${ctx.s}.leases l on l.scope = b.scope and l.task = b.task
           where b.scope = $1 order by b.task collate "C"`,
          [ctx.scope, at],
        ),
      );
      return rows.map((row) => ({
        ...entryOf(row),
        ...(row.lease_ended ? { leaseExpired: true } : {}),
      }));
    },
    async get(task: TaskId): Promise<BacklogEntry | undefined> {
      const { rows } = await ctx.pool.query<BacklogRow>(
        `select * from ${ctx.s}.backlog where scope = $1 and task = $2`,
        [ctx.scope, task],
      );
      return rows[0] ? entryOf(rows[0]) : undefined;
    },
    /** An orphaned task first (its holder's lease expired), else the next delivery. */
    take: (holder: string, ttlMs: number): Promise<Delivery | undefined> =>
      passing(takeFromBacklog(q, holder, ttlMs)),
    /** A task's end, fenced; archiving delivers the dependents it releases. */
    finish: (
      task: TaskId,
      status: 'archived' | 'blocked',
      fence: Fence,
      archive?: Record<string, string>,
    ) => passing(finishInBacklog(q, task, status, fence, archive)),
    /** Gives a taken task back, fenced, delivered again after `afterSeconds`. */
    requeue: (task: TaskId, fence: Fence, afterSeconds = 0) =>
      passing(requeueInBacklog(q, task, fence, afterSeconds)),
    /** A human's answer on a task, its row locked; may deliver a blocked task again. */
    reopen: (
      task: TaskId,
      decide: (entry: BacklogEntry, liveHolder: string | undefined) => Promise<boolean>,
    ) => reopenInBacklog(q, task, decide),
    /** Every scope of the database that holds backlog tasks (this one's included). */
    scopes: () => backlogScopes(ctx),
    /** Moves the scope `from` (all its records) to this one, which has no backlog yet. */
    adopt: (from: string) => adoptScope(q, from),
    /**
     * Calls `onChange` whenever this scope's backlog changes on any machine (LISTEN/NOTIFY),
     * and once more after the listening connection was lost and taken again (changes
     * meanwhile were not notified).
     */
    watch: (onChange: () => void): Promise<{ stop(): Promise<void> }> =>
      listenLasting(
        ctx.pool,
        BACKLOG_CHANNEL,
        (payload) => {
          if (payload === ctx.scope) onChange();
        },
        onChange,
      ),
  };
}

export type PgBacklog = ReturnType<typeof pgBacklog>;
