import type {
  Schedule,
  SchedulePort,
  ScheduleRuns,
  TargetState,
  TargetStatePort,
} from '@switchyard/core';
import { checkFence, type PgContext } from './context.js';
import { lockKey, transaction } from './db.js';

/**
 * Schedules and their runs. `claimFire` is one conditional upsert: of daemons racing for a fire
 * time, the one whose statement commits first records it; the others' condition is then false.
 */
export function pgSchedules(ctx: PgContext): SchedulePort {
  return {
    async list() {
      const { rows } = await ctx.pool.query<{ schedule: Schedule }>(
        `select schedule from ${ctx.s}.schedules where scope = $1 order by id collate "C"`,
        [ctx.scope],
      );
      return rows.map((row) => row.schedule);
    },
    async put(schedule) {
      await ctx.pool.query(
        `insert into ${ctx.s}.schedules (scope, id, schedule) values ($1, $2, $3)
         on conflict (scope, id) do update set schedule = excluded.schedule`,
        [ctx.scope, schedule.id, JSON.stringify(schedule)],
      );
    },
    async remove(id) {
      const { rowCount } = await ctx.pool.query(
        `delete from ${ctx.s}.schedules where scope = $1 and id = $2`,
        [ctx.scope, id],
      );
      return rowCount === 1;
    },
    async runs() {
      const { rows } = await ctx.pool.query<{ id: string; runs: ScheduleRuns }>(
        `select id, runs from ${ctx.s}.schedule_runs where scope = $1 order by id collate "C"`,
        [ctx.scope],
      );
      return Object.fromEntries(rows.map((row) => [row.id, row.runs]));
    },
    async putRuns(id, runs) {
      // Several daemons write a schedule's record: none moves its last fire time back (the one
      // `claimFire` recorded), or a late claim of a time already fired would win again.
      await ctx.pool.query(
        `insert into ${ctx.s}.schedule_runs as r (scope, id, runs) values ($1, $2, $3)
         on conflict (scope, id) do update set runs = case
           when r.runs->>'lastFireAt' is not null
            and (excluded.runs->>'lastFireAt' is null
             or (excluded.runs->>'lastFireAt')::timestamptz < (r.runs->>'lastFireAt')::timestamptz)
           then jsonb_set(excluded.runs, '{lastFireAt}', r.runs->'lastFireAt')
           else excluded.runs end`,
        [ctx.scope, id, JSON.stringify(runs)],
      );
    },
    async claimFire(id, fireAt) {
      const { rowCount } = await ctx.pool.query(
        `insert into ${ctx.s}.schedule_runs as r (scope, id, runs)
         values ($1, $2, jsonb_build_object('missed', 0, 'missedAt', '[]'::jsonb, 'lastFireAt', $3::text))
         on conflict (scope, id) do update
           set runs = jsonb_set(r.runs, '{lastFireAt}', to_jsonb($3::text))
           where r.runs->>'lastFireAt' is null
              or (r.runs->>'lastFireAt')::timestamptz < $3::timestamptz`,
        [ctx.scope, id, fireAt],
      );
      return rowCount === 1;
    },
    locate: () => `${ctx.location} schedules`,
  };
}

const later = (a: string | undefined, b: string): string =>
  a !== undefined && Date.parse(a) > Date.parse(b) ? a : b;

/** Target cool-down and park instants, each change read-modify-written under the target's lock. */
export function pgTargets(ctx: PgContext): TargetStatePort {
  const update = (
    target: string,
    fence: { task: string; token: number } | undefined,
    patch: (old: TargetState | undefined) => Partial<TargetState>,
  ) =>
    transaction(ctx.pool, async (client) => {
      await checkFence(ctx, client, fence);
      await lockKey(client, `target:${ctx.scope}:${target}`);
      const { rows } = await client.query<{ state: TargetState }>(
        `select state from ${ctx.s}.targets where scope = $1 and target = $2`,
        [ctx.scope, target],
      );
      const old = rows[0]?.state;
      const next: TargetState = {
        ...old,
        target,
        ...patch(old),
        updatedAt: new Date(await ctx.now(client)).toISOString(),
      };
      await client.query(
        `insert into ${ctx.s}.targets (scope, target, state) values ($1, $2, $3)
         on conflict (scope, target) do update set state = excluded.state`,
        [ctx.scope, target, JSON.stringify(next)],
      );
      return next;
    });
  return {
    async get(target) {
      const { rows } = await ctx.pool.query<{ state: TargetState }>(
        `select state from ${ctx.s}.targets where scope = $1 and target = $2`,
        [ctx.scope, target],
      );
      return rows[0]?.state;
    },
    async list() {
      const { rows } = await ctx.pool.query<{ state: TargetState }>(
        `select state from ${ctx.s}.targets where scope = $1 order by target collate "C"`,
        [ctx.scope],
      );
      return rows.map((row) => row.state);
    },
    coolDown: (target, until, reason, options) =>
      update(target, options?.fence, (old) => {
        const at = later(old?.coolDownUntil, until);
        return { coolDownUntil: at, reason: at === until ? reason : old?.reason };
      }),
    park: (target, until, options) =>
      update(target, options?.fence, (old) => ({ parkedUntil: later(old?.parkedUntil, until) })),
    clear: (target, options) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, options?.fence);
        await client.query(`delete from ${ctx.s}.targets where scope = $1 and target = $2`, [
          ctx.scope,
          target,
        ]);
      }),
  };
}
