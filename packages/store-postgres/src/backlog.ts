import { createHash } from 'node:crypto';
import { type Fence, type Lease, SwitchyardError, type TaskId } from '@switchyard/core';
import type { PgBoss } from 'pg-boss';
import { inTransaction } from './boss.js';
import { checkFence, type PgContext } from './context.js';
import { type Client, checkOut, transaction } from './db.js';
import { acquireLease } from './pg-leases.js';

/** A task as published to the shared backlog. */
export interface BacklogTask {
  task: TaskId;
  /** SHA-256 of the plan content: the same id and hash is the same task. */
  planHash: string;
  /** Tasks that must be archived in the backlog before this one is delivered. */
  dependsOn: TaskId[];
  /** What a machine needs to run the task (its plan files, write set…): JSON, opaque here. */
  payload: unknown;
}

export type BacklogStatus = 'waiting' | 'ready' | 'taken' | 'archived' | 'blocked';

export interface BacklogEntry extends BacklogTask {
  status: BacklogStatus;
  publishedBy: string;
  publishedAt: string;
  /** The holder of the task's lease (the machine working on it, or the last one). */
  holder?: string;
  /** The archive folder's text files, as the machine that archived it left them. */
  archive?: Record<string, string>;
}

/** A task delivered to one holder, with the lease (and fencing token) it now holds. */
export interface Delivery {
  entry: BacklogEntry;
  lease: Lease;
}

/** The NOTIFY channel of backlog changes (payload: the scope). */
export const BACKLOG_CHANNEL = 'switchyard_backlog';

interface Row {
  task: string;
  plan_hash: string;
  depends_on: string[];
  status: BacklogStatus;
  entry: unknown;
  published_by: string;
  published_at: Date;
  holder?: string | null;
  archive?: Record<string, string> | null;
}

const entryOf = (row: Row): BacklogEntry => ({
  task: row.task,
  planHash: row.plan_hash,
  dependsOn: row.depends_on,
  payload: row.entry,
  status: row.status,
  publishedBy: row.published_by,
  publishedAt: new Date(row.published_at).toISOString(),
  ...(row.holder ? { holder: row.holder } : {}),
  ...(row.archive ? { archive: row.archive } : {}),
});

/** The pg-boss queue that delivers one scope's ready tasks. */
export const queueName = (scope: string): string =>
  `switchyard-tasks-${createHash('sha256').update(scope).digest('hex').slice(0, 16)}`;

/**
 * The shared backlog of one scope. Rows hold each task, its dependencies and its status; pg-boss
 * delivers the tasks that are ready (every predecessor archived): one job per ready task
 * (`exclusive` policy keyed by task id), fetched by exactly one taker (SKIP LOCKED), redelivered
 * when a taker died before settling it. A taker turns a delivery into a lease in one
 * transaction with the job's completion; from then on the lease and its fencing token own the
 * task, and a holder that dies is found by its expired lease, not by pg-boss.
 */
export function pgBacklog(ctx: PgContext, boss: PgBoss) {
  const queue = queueName(ctx.scope);
  let created: Promise<void> | undefined;
  const ensureQueue = () => {
    created ??= boss.createQueue(queue, {
      policy: 'exclusive',
      notify: true,
      retryLimit: 1000,
      expireInSeconds: 120,
    });
    return created;
  };
  const deliver = async (client: Client, tasks: string[], startAfterSeconds = 0) => {
    for (const task of tasks)
      await boss.send(
        queue,
        { task },
        { singletonKey: task, startAfter: startAfterSeconds, db: inTransaction(client) },
      );
    if (tasks.length > 0)
      await client.query('select pg_notify($1, $2)', [BACKLOG_CHANNEL, ctx.scope]);
  };
  /** Waiting tasks of the scope whose predecessors are all archived now. */
  const releasable = async (client: Client) => {
    const { rows } = await client.query<{ task: string }>(
      `update ${ctx.s}.backlog b set status = 'ready', updated_at = now()
       where b.scope = $1 and b.status = 'waiting' and not exists (
         select 1 from unnest(b.depends_on) d(task)
         where not exists (select 1 from ${ctx.s}.backlog p
                           where p.scope = b.scope and p.task = d.task and p.status = 'archived'))
       returning task`,
      [ctx.scope],
    );
    return rows.map((row) => row.task).sort();
  };
  const lockRow = async (client: Client, task: string) => {
    const { rows } = await client.query<Row>(
      `select * from ${ctx.s}.backlog where scope = $1 and task = $2 for update`,
      [ctx.scope, task],
    );
    return rows[0];
  };

  return {
    queue,
    /**
     * Publishes tasks in one transaction, all or none. A task already there with the same plan
     * hash is the same task (`existing`, unchanged whatever its status); with another hash the
     * whole publish is refused with `SY_BACKLOG_CONFLICT` naming every such task.
     */
    async publish(tasks: readonly BacklogTask[], by: string) {
      await ensureQueue();
      return transaction(ctx.pool, async (client) => {
        const outcomes: { task: string; outcome: 'published' | 'existing' }[] = [];
        const conflicts: string[] = [];
        for (const task of [...tasks].sort((a, b) => (a.task < b.task ? -1 : 1))) {
          const inserted = await client.query(
            `insert into ${ctx.s}.backlog (scope, task, plan_hash, depends_on, status, entry, published_by)
             values ($1, $2, $3, $4, 'waiting', $5, $6) on conflict do nothing`,
            [
              ctx.scope,
              task.task,
              task.planHash,
              task.dependsOn,
              JSON.stringify(task.payload ?? null),
              by,
            ],
          );
          if (inserted.rowCount === 1) {
            outcomes.push({ task: task.task, outcome: 'published' });
            continue;
          }
          const existing = await lockRow(client, task.task);
          if (existing?.plan_hash === task.planHash)
            outcomes.push({ task: task.task, outcome: 'existing' });
          else
            conflicts.push(
              `${task.task} (backlog ${existing?.plan_hash.slice(0, 12)}, yours ${task.planHash.slice(0, 12)})`,
            );
        }
        if (conflicts.length > 0)
          throw new SwitchyardError(
            'SY_BACKLOG_CONFLICT',
            `The shared backlog ${ctx.location} already has ${conflicts.length === 1 ? 'a task' : 'tasks'} of the same id with another plan: ${conflicts.join(', ')}; nothing was published.`,
            {
              hint: 'A published task is never changed under the machines working on it: give the new plan a new task id, or wait until the old task is archived and remove it from the backlog.',
            },
          );
        await deliver(client, await releasable(client));
        return outcomes;
      });
    },
    async list(): Promise<BacklogEntry[]> {
      const { rows } = await ctx.pool.query<Row>(
        `select b.*, l.holder from ${ctx.s}.backlog b
         left join ${ctx.s}.leases l on l.scope = b.scope and l.task = b.task
         where b.scope = $1 order by b.task collate "C"`,
        [ctx.scope],
      );
      return rows.map(entryOf);
    },
    async get(task: TaskId): Promise<BacklogEntry | undefined> {
      const { rows } = await ctx.pool.query<Row>(
        `select * from ${ctx.s}.backlog where scope = $1 and task = $2`,
        [ctx.scope, task],
      );
      return rows[0] ? entryOf(rows[0]) : undefined;
    },
    /**
     * The next task for `holder`, leased for `ttlMs`, or undefined when nothing is deliverable.
     * A taken task whose holder's lease expired (the holder died or froze) is taken over first,
     * with a greater token; then the next pg-boss delivery is fetched.
     */
    async take(holder: string, ttlMs: number): Promise<Delivery | undefined> {
      await ensureQueue();
      const orphan = await transaction(ctx.pool, async (client) => {
        const at = await ctx.now(client);
        const { rows } = await client.query<Row>(
          `select b.* from ${ctx.s}.backlog b join ${ctx.s}.leases l on l.scope = b.scope and l.task = b.task
           where b.scope = $1 and b.status = 'taken' and (l.released or l.expires_at <= $2)
           order by b.task collate "C" limit 1 for update of b skip locked`,
          [ctx.scope, at],
        );
        const row = rows[0];
        if (!row) return undefined;
        const taken = await acquireLease(ctx, client, row.task, holder, ttlMs);
        return taken.ok ? { entry: entryOf(row), lease: taken.lease } : undefined;
      });
      if (orphan) return orphan;
      for (;;) {
        const [job] = await boss.fetch<{ task: string }>(queue, { batchSize: 1 });
        if (!job) return undefined;
        const delivery = await transaction(ctx.pool, async (client) => {
          const row = await lockRow(client, job.data.task);
          let result: Delivery | undefined;
          if (row?.status === 'ready') {
            const taken = await acquireLease(ctx, client, row.task, holder, ttlMs);
            if (taken.ok) {
              await client.query(
                `update ${ctx.s}.backlog set status = 'taken', updated_at = now() where scope = $1 and task = $2`,
                [ctx.scope, row.task],
              );
              result = { entry: { ...entryOf(row), status: 'taken' }, lease: taken.lease };
            }
          }
          // Settled with the lease, or dropped as stale: only the attempt this taker fetched.
          await boss.complete(queue, { id: job.id, retryCount: job.retryCount }, null, {
            db: inTransaction(client),
          });
          return result;
        });
        if (delivery) return delivery;
      }
    },
    /**
     * Records a task's end (fenced: only its current holder may), with the archive folder's
     * files for the other machines to materialize. Archiving delivers every waiting task whose
     * predecessors are now all archived, in the same transaction; a blocked task keeps its
     * dependents waiting.
     */
    finish: (
      task: TaskId,
      status: 'archived' | 'blocked',
      fence: Fence,
      archive?: Record<string, string>,
    ) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, fence);
        await client.query(
          `update ${ctx.s}.backlog set status = $3, updated_at = now(),
             archive = coalesce($4::jsonb, archive) where scope = $1 and task = $2`,
          [ctx.scope, task, status, archive ? JSON.stringify(archive) : null],
        );
        await deliver(client, status === 'archived' ? await releasable(client) : []);
        await client.query('select pg_notify($1, $2)', [BACKLOG_CHANNEL, ctx.scope]);
      }),
    /**
     * Gives a taken task back (its write set is claimed by another task, this machine is
     * stopping): releases the lease and delivers the task again after `afterSeconds`. Fenced.
     */
    requeue: (task: TaskId, fence: Fence, afterSeconds = 0) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, fence);
        await client.query(
          `update ${ctx.s}.leases set released = true where scope = $1 and task = $2 and token = $3`,
          [ctx.scope, task, fence.token],
        );
        await client.query(
          `update ${ctx.s}.backlog set status = 'ready', updated_at = now() where scope = $1 and task = $2`,
          [ctx.scope, task],
        );
        await deliver(client, [task], afterSeconds);
      }),
    /**
     * A human's answer on a task (`switchyard resolve`, `retry`), with the task's row locked:
     * `decide` gets the entry and the holder whose lease on the task is live (if any), makes
     * its own changes, may throw to refuse, and returns whether a `blocked` task is to be
     * delivered again (`ready`). Returns the entry as it was, or undefined for a task the
     * backlog lacks (`decide` is not called).
     */
    reopen: (
      task: TaskId,
      decide: (entry: BacklogEntry, liveHolder: string | undefined) => Promise<boolean>,
    ) =>
      transaction(ctx.pool, async (client) => {
        const row = await lockRow(client, task);
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
        await deliver(client, [task]);
        return entry;
      }),
    /** Calls `onChange` whenever this scope's backlog changes on any machine (LISTEN/NOTIFY). */
    async watch(onChange: () => void): Promise<{ stop(): Promise<void> }> {
      const { client, release } = await checkOut(ctx.pool);
      client.on('notification', (message) => {
        if (message.channel === BACKLOG_CHANNEL && message.payload === ctx.scope) onChange();
      });
      await client.query(`listen ${BACKLOG_CHANNEL}`);
      return {
        async stop() {
          await client.query(`unlisten ${BACKLOG_CHANNEL}`).catch(() => undefined);
          release();
        },
      };
    },
  };
}

export type PgBacklog = ReturnType<typeof pgBacklog>;
