import { createHash } from 'node:crypto';
import type { PgBoss } from 'pg-boss';
import type { BacklogEntry, BacklogStatus } from './backlog-types.js';
import { inTransaction } from './boss.js';
import type { PgContext } from './context.js';
import { type Client, lockKey } from './db.js';

/** The NOTIFY channel of backlog changes (payload: the scope). */
export const BACKLOG_CHANNEL = 'switchyard_backlog';

/** A row of the backlog table (with the lease holder when joined). */
export interface BacklogRow {
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

export const entryOf = (row: BacklogRow): BacklogEntry => ({
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

/**
 * How long pg-boss keeps a job nobody fetched (its default is 14 days, then the job is deleted).
 * A ready task is delivered by its job alone, and one may wait that long for a machine with
 * room: 50 years (pg-boss keeps it in an int column). `take` sends a lost job again anyway.
 */
export const JOB_RETENTION_SECONDS = 50 * 365 * 24 * 60 * 60;

/** The pg-boss queue that delivers one scope's ready tasks. */
export const queueName = (scope: string): string =>
  `switchyard-tasks-${createHash('sha256').update(scope).digest('hex').slice(0, 16)}`;

/** One scope's delivery queue and the row queries every backlog operation shares. */
export interface BacklogQueue {
  ctx: PgContext;
  boss: PgBoss;
  /** The pg-boss queue name. */
  queue: string;
  /** Creates the queue once (exclusive per task, notifying, retried, kept for decades). */
  ensure(): Promise<void>;
  /**
   * Sends one job per task, in the client's transaction, and notifies the scope's watchers when
   * one was sent. A task whose job still waits (created, retry) or is being taken (active) keeps
   * that one: the queue's exclusive policy drops the second send of its key. Returns how many
   * jobs were sent.
   */
  deliver(client: Client, tasks: string[], startAfterSeconds?: number): Promise<number>;
  /** Sends the jobs of every ready task of the scope again (`deliver`); returns how many were sent. */
  redeliver(client: Client): Promise<number>;
  /**
   * Takes the scope's backlog lock for the transaction: every transaction that archives a task
   * or publishes one takes it first (before any row lock), so a `releasable` runs after every
   * other archive or publish of the scope has committed and sees it. Without it two machines
   * archiving a task's last two predecessors at once each miss the other's archive (READ
   * COMMITTED), and the task waits for ever.
   */
  lockScope(client: Client): Promise<void>;
  /**
   * Marks ready the waiting tasks whose predecessors are all archived now; returns them, sorted.
   * Only with the scope's lock (`lockScope`) taken first.
   */
  releasable(client: Client): Promise<string[]>;
  /**
   * The task's row, locked for the transaction. A transaction that locks a task's lease row too
   * locks its backlog row first (take, finish, requeue), so two of them never deadlock.
   */
  lockRow(client: Client, task: string): Promise<BacklogRow | undefined>;
}

export function backlogQueue(ctx: PgContext, boss: PgBoss): BacklogQueue {
  const queue = queueName(ctx.scope);
  let created: Promise<void> | undefined;
  const deliver = async (client: Client, tasks: string[], startAfterSeconds = 0) => {
    let sent = 0;
    for (const task of tasks) {
      const id = await boss.send(
        queue,
        { task },
        {
          singletonKey: task,
          startAfter: startAfterSeconds,
          // Per job as well: a queue created before kept pg-boss's default.
          retentionSeconds: JOB_RETENTION_SECONDS,
          db: inTransaction(client),
        },
      );
      if (id !== null) sent += 1;
    }
    if (sent > 0) await client.query('select pg_notify($1, $2)', [BACKLOG_CHANNEL, ctx.scope]);
    return sent;
  };
  return {
    ctx,
    boss,
    queue,
    ensure() {
      created ??= boss.createQueue(queue, {
        policy: 'exclusive',
        notify: true,
        retryLimit: 1000,
        expireInSeconds: 120,
        retentionSeconds: JOB_RETENTION_SECONDS,
      });
      return created;
    },
    deliver,
    async redeliver(client) {
      // A row being taken right now (locked) is that take's. A task whose last holder's lease
      // still runs cannot be taken until it expires: a job now would only wake every machine
      // to a take that drops it, again and again.
      const at = await ctx.now(client);
      const { rows } = await client.query<{ task: string }>(
        `select b.task from ${ctx.s}.backlog b
         where b.scope = $1 and b.status = 'ready' and not exists (
           select 1 from ${ctx.s}.leases l
           where l.scope = b.scope and l.task = b.task and not l.released and l.expires_at > $2)
         order by b.task collate "C" for update of b skip locked`,
        [ctx.scope, at],
      );
      return deliver(
        client,
        rows.map((row) => row.task),
      );
    },
    lockScope: (client) => lockKey(client, `backlog:${ctx.scope}`),
    async releasable(client) {
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
    },
    async lockRow(client, task) {
      const { rows } = await client.query<BacklogRow>(
        `select * from ${ctx.s}.backlog where scope = $1 and task = $2 for update`,
        [ctx.scope, task],
      );
      return rows[0];
    },
  };
}
