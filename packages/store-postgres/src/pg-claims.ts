import type { ClaimConflict, ClaimPort } from '@switchyard/core';
import { checkFence, type PgContext } from './context.js';
import { lockKey, transaction } from './db.js';

/**
 * Write-set claims as rows (one per path). `tryClaim` takes an advisory lock per path in sorted
 * order (so two claimers never deadlock), then sees every committed claim and inserts all of
 * its paths or none, in one transaction; the primary key on (scope, path) is the backstop.
 */
export function pgClaims(ctx: PgContext): ClaimPort {
  const index = async () => {
    const { rows } = await ctx.pool.query<{ path: string; task: string }>(
      `select path, task from ${ctx.s}.claims where scope = $1 order by path collate "C"`,
      [ctx.scope],
    );
    return new Map(rows.map((row) => [row.path, row.task]));
  };
  return {
    tryClaim: (taskId, paths, options) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, options?.fence);
        const wanted = [...new Set(paths)].sort();
        for (const path of wanted) await lockKey(client, `claim:${ctx.scope}:${path}`);
        const held = await client.query<{ path: string; task: string }>(
          `select path, task from ${ctx.s}.claims where scope = $1 and path = any($2)`,
          [ctx.scope, wanted],
        );
        const conflicts: ClaimConflict[] = held.rows
          .filter((row) => row.task !== taskId)
          .map((row) => ({ path: row.path, holder: row.task }))
          .sort((x, y) => wanted.indexOf(x.path) - wanted.indexOf(y.path));
        if (conflicts.length > 0) return { ok: false, conflicts };
        await client.query(
          `insert into ${ctx.s}.claims (scope, path, task)
           select $1, unnest($2::text[]), $3 on conflict do nothing`,
          [ctx.scope, wanted, taskId],
        );
        await client.query(
          `insert into ${ctx.s}.claim_holders (scope, task, since) values ($1, $2, $3)
           on conflict do nothing`,
          [ctx.scope, taskId, new Date(await ctx.now(client)).toISOString()],
        );
        const all = await client.query<{ path: string }>(
          `select path from ${ctx.s}.claims where scope = $1 and task = $2 order by path collate "C"`,
          [ctx.scope, taskId],
        );
        return { ok: true, paths: all.rows.map((row) => row.path) };
      }),
    release: (taskId, options) =>
      transaction(ctx.pool, async (client) => {
        await checkFence(ctx, client, options?.fence);
        const { rows } = await client.query<{ path: string }>(
          `delete from ${ctx.s}.claims where scope = $1 and task = $2 returning path`,
          [ctx.scope, taskId],
        );
        await client.query(`delete from ${ctx.s}.claim_holders where scope = $1 and task = $2`, [
          ctx.scope,
          taskId,
        ]);
        return rows.map((row) => row.path).sort();
      }),
    async holderOf(path) {
      const { rows } = await ctx.pool.query<{ task: string }>(
        `select task from ${ctx.s}.claims where scope = $1 and path = $2`,
        [ctx.scope, path],
      );
      return rows[0]?.task;
    },
    async list() {
      const { rows } = await ctx.pool.query<{ task: string; since: string; paths: string[] }>(
        `select h.task, h.since,
           array(select c.path from ${ctx.s}.claims c where c.scope = h.scope and c.task = h.task
                 order by c.path collate "C") as paths
         from ${ctx.s}.claim_holders h where h.scope = $1 order by h.task collate "C"`,
        [ctx.scope],
      );
      return rows
        .filter((row) => row.paths.length > 0)
        .map((row) => ({ taskId: row.task, paths: row.paths, since: row.since }));
    },
    snapshot: index,
  };
}
