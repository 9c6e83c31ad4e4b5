import type { Lease, LeasePort, LeaseResult } from '@switchyard/core';
import { type LeaseRow, leaseOf, lockLeaseRow, type PgContext } from './context.js';
import { type Client, transaction } from './db.js';

/**
 * Leases in the `leases` table. Tokens come from one database sequence, so a steal always gets a
 * token greater than every token issued before (tokens never repeat, not even after a release).
 */
export function pgLeases(ctx: PgContext): LeasePort {
  return {
    acquire: (task, holder, ttlMs) =>
      transaction(ctx.pool, (client) => acquireLease(ctx, client, task, holder, ttlMs)),
    renew: (leases, ttlMs) =>
      transaction(ctx.pool, async (client) => {
        const at = await ctx.now(client);
        // Rows are locked in task order so two renewers never deadlock.
        const order = [...leases.keys()].sort((x, y) =>
          (leases[x] as Lease).task.localeCompare((leases[y] as Lease).task),
        );
        const result: (Lease | undefined)[] = leases.map(() => undefined);
        for (const i of order) {
          const lease = leases[i] as Lease;
          const { rows } = await client.query<LeaseRow>(
            `update ${ctx.s}.leases set expires_at = $4
             where scope = $1 and task = $2 and token = $3 and not released returning *`,
            [ctx.scope, lease.task, lease.token, at + ttlMs],
          );
          result[i] = rows[0] ? leaseOf(rows[0]) : undefined;
        }
        return result;
      }),
    async release(lease) {
      await ctx.pool.query(
        `update ${ctx.s}.leases set released = true
         where scope = $1 and task = $2 and token = $3 and not released`,
        [ctx.scope, lease.task, lease.token],
      );
    },
    async get(task) {
      const { rows } = await ctx.pool.query<LeaseRow>(
        `select * from ${ctx.s}.leases where scope = $1 and task = $2 and not released`,
        [ctx.scope, task],
      );
      return rows[0] ? leaseOf(rows[0]) : undefined;
    },
    async list() {
      const { rows } = await ctx.pool.query<LeaseRow>(
        `select * from ${ctx.s}.leases where scope = $1 and not released order by task collate "C"`,
        [ctx.scope],
      );
      return rows.map(leaseOf);
    },
  };
}

/** `acquire` inside a caller's transaction (the backlog takes a task and its lease at once). */
export async function acquireLease(
  ctx: PgContext,
  client: Client,
  task: string,
  holder: string,
  ttlMs: number,
): Promise<LeaseResult> {
  const at = await ctx.now(client);
  const row = await lockLeaseRow(ctx, client, task);
  const live = !row.released;
  if (live && row.holder !== holder && Number(row.expires_at) > at)
    return { ok: false, held: leaseOf(row) };
  const renew = live && row.holder === holder;
  const { rows } = await client.query<LeaseRow>(
    renew
      ? `update ${ctx.s}.leases set expires_at = $3 where scope = $1 and task = $2 returning *`
      : `update ${ctx.s}.leases set holder = $4, token = nextval('${ctx.s}.lease_tokens'),
           expires_at = $3, acquired_at = $5, released = false
         where scope = $1 and task = $2 returning *`,
    renew ? [ctx.scope, task, at + ttlMs] : [ctx.scope, task, at + ttlMs, holder, at],
  );
  return { ok: true, lease: leaseOf(rows[0] as LeaseRow) };
}
