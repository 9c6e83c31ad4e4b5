import {
  type AttemptIndexPort,
  type AttemptLocator,
  type AttemptRef,
  type EscalationPort,
  openStartsAcrossLogs,
  type RunEvent,
  type SessionMonitor,
  type SessionPlan,
  type SessionPort,
  type SessionStatus,
  type StoredEscalation,
  type WorkLogPort,
  type WorkLogRow,
} from '@switchyard/core';
import { checkFence, type PgContext } from './context.js';
import { lockKey, transaction } from './db.js';

/**
 * Work-log rows per group; `archive` numbers the closed log and the next append opens a new one.
 * An archived log was last written at the time of its latest row.
 */
export function pgWorkLog(ctx: PgContext): WorkLogPort {
  const openLog = (group: string) => `${ctx.location} work_log ${group}`;
  return {
    append: (group, rows, options) =>
      ctx.inOrder('work-log', () =>
        transaction(ctx.pool, async (client) => {
          await checkFence(ctx, client, options?.fence);
          await client.query(
            `insert into ${ctx.s}.work_log (scope, grp, row)
             select $1, $2, r from jsonb_array_elements($3::jsonb) with ordinality as t(r, n) order by n`,
            [ctx.scope, group, JSON.stringify(rows)],
          );
        }),
      ),
    // Every append committed before it resolved: a commit is durable (fsync is the server's).
    flush: () => ctx.inOrder('work-log', async () => undefined),
    async read(group) {
      const { rows } = await ctx.pool.query<{ row: WorkLogRow & { time: string } }>(
        `select row from ${ctx.s}.work_log where scope = $1 and grp = $2 and archive is null
         order by id`,
        [ctx.scope, group],
      );
      return rows.map(({ row }) => rowOf(row));
    },
    async groups() {
      const { rows } = await ctx.pool.query<{ grp: string }>(
        `select distinct grp from ${ctx.s}.work_log where scope = $1 and archive is null
         order by grp`,
        [ctx.scope],
      );
      return rows.map((r) => r.grp);
    },
    // After the appends called before it (as `flush`): a row handed over is a row read.
    openStarts: (group, options = {}) =>
      ctx.inOrder('work-log', async () => {
        const { rows } = await ctx.pool.query<{
          archive: number | null;
          row: WorkLogRow & { time: string };
        }>(
          `select archive, row from ${ctx.s}.work_log
           where scope = $1 and grp = $2 and (archive is null or archive in (
             select archive from ${ctx.s}.work_log
             where scope = $1 and grp = $2 and archive is not null and $3::double precision is not null
             group by archive having max((row->>'time')::timestamptz) >= to_timestamp($3 / 1000.0)))
           order by id`,
          [ctx.scope, group, options.archivedSince ?? null],
        );
        // Rows in id order: the archived logs oldest first, then the open one.
        return openStartsAcrossLogs(
          rows.map(({ archive, row }) => ({
            log: archive === null ? openLog(group) : `${openLog(group)} #${archive}`,
            rows: [rowOf(row)],
          })),
        );
      }),
    archive: (group) =>
      transaction(ctx.pool, async (client) => {
        await lockKey(client, `work-log:${ctx.scope}:${group}`);
        const { rows } = await client.query<{ count: number }>(
          `insert into ${ctx.s}.work_log_archives (scope, grp, count) values ($1, $2, 1)
           on conflict (scope, grp) do update set count = ${ctx.s}.work_log_archives.count + 1
           returning count`,
          [ctx.scope, group],
        );
        const count = Number(rows[0]?.count);
        const moved = await client.query(
          `update ${ctx.s}.work_log set archive = $3 where scope = $1 and grp = $2 and archive is null`,
          [ctx.scope, group, count],
        );
        if (moved.rowCount === 0) throw new NothingToArchive();
        return `${openLog(group)} #${count}`;
      }).catch((error: unknown) => {
        if (error instanceof NothingToArchive) return undefined;
        throw error;
      }),
  };
}

const rowOf = (row: WorkLogRow & { time: string }): WorkLogRow => ({
  ...row,
  time: new Date(row.time),
});

/** Thrown inside `archive`'s transaction to roll back the counter when no row is open. */
class NothingToArchive extends Error {}

export function pgAttempts(ctx: PgContext): AttemptIndexPort {
  return {
    put: (ref, locator, options) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, options?.fence);
        await client.query(
          `insert into ${ctx.s}.attempts (scope, attempt_id, task, started_at, ref, locator)
           values ($1, $2, $3, $4, $5, $6) on conflict (scope, attempt_id) do update
           set task = excluded.task, started_at = excluded.started_at, ref = excluded.ref,
               locator = excluded.locator`,
          [
            ctx.scope,
            ref.attemptId,
            locator.taskId,
            locator.startedAt,
            JSON.stringify(ref),
            JSON.stringify(locator),
          ],
        );
      }),
    async get(ref) {
      const { rows } = await ctx.pool.query<{ locator: AttemptLocator }>(
        `select locator from ${ctx.s}.attempts where scope = $1 and attempt_id = $2`,
        [ctx.scope, ref.attemptId],
      );
      return rows[0]?.locator;
    },
    async list(task) {
      const { rows } = await ctx.pool.query<{ ref: AttemptRef; locator: AttemptLocator }>(
        `select ref, locator from ${ctx.s}.attempts where scope = $1 and ($2::text is null or task = $2)
         order by started_at, attempt_id collate "C"`,
        [ctx.scope, task ?? null],
      );
      return rows;
    },
  };
}

export function pgSessions(ctx: PgContext): SessionPort {
  const one = async <T>(column: 'plan' | 'status' | 'monitor', id: string) => {
    const { rows } = await ctx.pool.query<Record<string, T>>(
      `select ${column} from ${ctx.s}.sessions where scope = $1 and id = $2`,
      [ctx.scope, id],
    );
    return rows[0]?.[column];
  };
  return {
    async create(plan, status) {
      await ctx.pool.query(
        `insert into ${ctx.s}.sessions (scope, id, plan, status) values ($1, $2, $3, $4)
         on conflict (scope, id) do update set plan = excluded.plan, status = excluded.status`,
        [ctx.scope, plan.id, JSON.stringify(plan), JSON.stringify(status)],
      );
    },
    async putStatus(status) {
      await ctx.pool.query(
        `update ${ctx.s}.sessions set status = $3 where scope = $1 and id = $2`,
        [ctx.scope, status.id, JSON.stringify(status)],
      );
    },
    getPlan: (id) => one<SessionPlan>('plan', id),
    getStatus: (id) => one<SessionStatus>('status', id),
    async ids() {
      const { rows } = await ctx.pool.query<{ id: string }>(
        `select id from ${ctx.s}.sessions where scope = $1 order by id collate "C"`,
        [ctx.scope],
      );
      return rows.map((row) => row.id);
    },
    appendEvent: (id, event) =>
      ctx.inOrder('session-events', async () => {
        await ctx.pool.query(
          `insert into ${ctx.s}.session_events (scope, session, event)
           select $1, $2, $3 where exists
             (select 1 from ${ctx.s}.sessions where scope = $1 and id = $2)`,
          [ctx.scope, id, JSON.stringify(event)],
        );
      }),
    async readEvents(id) {
      const { rows } = await ctx.pool.query<{ event: RunEvent }>(
        `select event from ${ctx.s}.session_events where scope = $1 and session = $2 order by id`,
        [ctx.scope, id],
      );
      return rows.map((row) => row.event);
    },
    async putMonitor(id, monitor) {
      await ctx.pool.query(
        `update ${ctx.s}.sessions set monitor = $3 where scope = $1 and id = $2`,
        [ctx.scope, id, JSON.stringify(monitor)],
      );
    },
    getMonitor: async (id) => (await one<SessionMonitor | null>('monitor', id)) ?? undefined,
    locate: (id) => `${ctx.location} sessions ${id}`,
  };
}

export function pgEscalations(ctx: PgContext): EscalationPort {
  return {
    put: (bundle, interview, options) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, options?.fence);
        await client.query(
          `insert into ${ctx.s}.escalations (scope, task, bundle, interview) values ($1, $2, $3, $4)
           on conflict (scope, task) do update set bundle = excluded.bundle, interview = excluded.interview`,
          [ctx.scope, bundle.task.id, JSON.stringify(bundle), JSON.stringify(interview)],
        );
      }),
    async get(task) {
      const { rows } = await ctx.pool.query<StoredEscalation & { interview: unknown }>(
        `select bundle, interview from ${ctx.s}.escalations where scope = $1 and task = $2`,
        [ctx.scope, task],
      );
      const row = rows[0];
      if (!row) return undefined;
      return row.interview === null ? { bundle: row.bundle } : row;
    },
    async tasks() {
      const { rows } = await ctx.pool.query<{ task: string }>(
        `select task from ${ctx.s}.escalations where scope = $1 order by task collate "C"`,
        [ctx.scope],
      );
      return rows.map((row) => row.task);
    },
    async resolve(task, action, at, by, note) {
      const resolution = JSON.stringify({
        action,
        at: at.toISOString(),
        ...(by ? { by } : {}),
        ...(note ? { note } : {}),
      });
      await ctx.pool.query(
        `update ${ctx.s}.escalations
         set bundle = jsonb_set(bundle, '{resolution}', $3::jsonb),
             interview = case when interview is null then null
                         else jsonb_set(interview, '{resolution}', $3::jsonb) end
         where scope = $1 and task = $2`,
        [ctx.scope, task, resolution],
      );
    },
    locate: (task) => ({
      bundle: `${ctx.location} escalations ${task} bundle`,
      interview: `${ctx.location} escalations ${task} interview`,
    }),
  };
}
