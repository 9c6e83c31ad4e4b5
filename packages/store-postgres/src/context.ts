import { type Fence, type Lease, leaseLost } from '@switchyard/core';
import { type Client, databaseNow, ident, type Pool } from './db.js';

/** What every port of one store handle shares. */
export interface PgContext {
  pool: Pool;
  /** The quoted schema, to qualify table names (`${ctx.s}.leases`). */
  s: string;
  /** The repository (backlog) this handle reads and writes. */
  scope: string;
  /** Where the store is, for people. */
  location: string;
  /** Epoch ms of "now": the caller's clock when it gave one, else the database's. */
  now(client: Client | Pool): Promise<number>;
  /** Runs writes of one kind in call order (appends of one writer keep their order). */
  inOrder<T>(key: string, write: () => Promise<T>): Promise<T>;
}

export function pgContext(options: {
  pool: Pool;
  schema: string;
  scope: string;
  location: string;
  now?: () => number;
}): PgContext {
  const queues = new Map<string, Promise<unknown>>();
  const clock = options.now;
  return {
    pool: options.pool,
    s: ident(options.schema),
    scope: options.scope,
    location: options.location,
    now: clock ? async () => clock() : databaseNow,
    inOrder(key, write) {
      const previous = queues.get(key) ?? Promise.resolve();
      const next = previous.then(write, write);
      const settled = next.catch(() => undefined);
      queues.set(key, settled);
      void settled.then(() => {
        if (queues.get(key) === settled) queues.delete(key);
      });
      return next;
    },
  };
}

interface LeaseRow {
  task: string;
  holder: string;
  token: number;
  expires_at: number;
  acquired_at: number;
  released: boolean;
}

export const leaseOf = (row: LeaseRow): Lease => ({
  task: row.task,
  holder: row.holder,
  token: Number(row.token),
  expiresAt: Number(row.expires_at),
  acquiredAt: Number(row.acquired_at),
});

/**
 * The fencing rule: inside the writing transaction, the task's lease row is read FOR SHARE and
 * its token compared with the fence. A steal (an UPDATE of that row) waits for the write to
 * commit, and a write after a steal sees the new token: a stale holder lands nothing.
 */
export async function checkFence(
  ctx: PgContext,
  client: Client,
  fence: Fence | undefined,
): Promise<void> {
  if (!fence) return;
  const { rows } = await client.query<LeaseRow>(
    `select * from ${ctx.s}.leases where scope = $1 and task = $2 and not released for share`,
    [ctx.scope, fence.task],
  );
  const current = rows[0] ? leaseOf(rows[0]) : undefined;
  if (current?.token !== fence.token) throw leaseLost(fence, current);
}

/** The task's current (unreleased) lease row, locked FOR UPDATE; created released if absent. */
export async function lockLeaseRow(
  ctx: PgContext,
  client: Client,
  task: string,
): Promise<LeaseRow> {
  await client.query(
    `insert into ${ctx.s}.leases (scope, task, holder, token, expires_at, acquired_at, released)
     values ($1, $2, '', 0, 0, 0, true) on conflict do nothing`,
    [ctx.scope, task],
  );
  const { rows } = await client.query<LeaseRow>(
    `select * from ${ctx.s}.leases where scope = $1 and task = $2 for update`,
    [ctx.scope, task],
  );
  return rows[0] as LeaseRow;
}

export type { LeaseRow };
