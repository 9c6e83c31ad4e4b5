import { SwitchyardError } from '@switchyard/core';
import pg from 'pg';
import type { PostgresLocation } from './url.js';

export type Client = pg.PoolClient;
export type Pool = pg.Pool;

// bigint columns (lease tokens, sequence numbers, epoch milliseconds) stay below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** A connection pool on the store's database; its errors never crash the process. */
export function createPool(
  location: PostgresLocation,
  max = 4,
  idleInTransactionMs = 15_000,
): Pool {
  const pool = new pg.Pool({
    connectionString: location.url,
    max,
    application_name: 'switchyard',
    connectionTimeoutMillis: 10_000,
    // A frozen holder (SIGSTOP, a stalled VM) must not keep the lease row locked: the server
    // ends its session, its transaction rolls back, and a steal goes ahead.
    idle_in_transaction_session_timeout: idleInTransactionMs,
  });
  // An idle client whose server went away emits here; the next query reports it.
  pool.on('error', () => undefined);
  return pool;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);
// PostgreSQL: invalid_password, invalid_authorization_specification, invalid_catalog_name
const LOGIN = new Set(['28P01', '28000', '3D000']);

/** A connection failure as `SY_STORE_UNREACHABLE` naming the store and the fix; else unchanged. */
export function connectionError(error: unknown, location: PostgresLocation): unknown {
  const code = (error as { code?: string }).code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  const timeout = /timeout/i.test(message);
  if (!UNREACHABLE.has(code) && !LOGIN.has(code) && !timeout) return error;
  const hint =
    code === '3D000'
      ? 'Create the database (createdb NAME, or CREATE DATABASE) or fix the name in the store URL.'
      : LOGIN.has(code)
        ? 'Check the user and password in the store URL (or PGPASSWORD / ~/.pgpass) and pg_hba.conf.'
        : 'Start the PostgreSQL server, or fix the host and port in the store URL; `switchyard store status --store URL` checks it.';
  return new SwitchyardError(
    'SY_STORE_UNREACHABLE',
    `The store ${location.display} cannot be used: ${message}.`,
    { hint, cause: error },
  );
}

// PostgreSQL: serialization_failure, deadlock_detected, lock_not_available, too_many_connections,
// admin_shutdown, crash_shutdown, cannot_connect_now; class 08 is connection_exception.
const PASSING_STATES = new Set(['40001', '40P01', '55P03', '53300', '57P01', '57P02', '57P03']);
const PASSING_NET = new Set([...UNREACHABLE, 'ECONNRESET', 'EPIPE', 'ENETUNREACH']);

/**
 * A failure that passes (a deadlock or serialization failure, a dropped or refused connection, a
 * server restarting) as `SY_STORE_TRANSIENT`: a dispatcher tries the operation again on its next
 * pass instead of ending its run. Anything else unchanged.
 */
export function transientError(error: unknown, location: string): unknown {
  if (SwitchyardError.is(error)) return error;
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  const passing =
    PASSING_STATES.has(code) ||
    code.startsWith('08') ||
    PASSING_NET.has(code) ||
    /connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i.test(
      message,
    );
  if (!passing) return error;
  return new SwitchyardError(
    'SY_STORE_TRANSIENT',
    `The store ${location} failed for a passing reason: ${message}${code ? ` (${code})` : ''}.`,
    {
      hint: 'A dispatcher tries again on its next pass. If it keeps failing, check the server: `switchyard store status --store URL`.',
      cause: error,
    },
  );
}

/**
 * A client taken from the pool for a while (a transaction, a LISTEN). The pool listens for the
 * errors of idle clients only: a checked-out client whose connection the server ends (a session
 * killed after `idle_in_transaction_session_timeout` while this process was frozen, a restart)
 * emits `error`, and an `error` nobody listens to crashes the process. Here it is kept, the
 * client's next query fails with it, and `release` hands a broken client back to be discarded.
 */
export async function checkOut(
  pool: Pool,
): Promise<{ client: Client; release(discard?: boolean): void }> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onError);
  return {
    client,
    /** `discard`: the connection is not to be reused (its state is unknown). */
    release(discard = false) {
      client.off('error', onError);
      client.release(broken ?? discard);
    },
  };
}

/** Runs `body` in one transaction (READ COMMITTED) on a client of the pool. */
export async function transaction<T>(pool: Pool, body: (client: Client) => Promise<T>): Promise<T> {
  const { client, release } = await checkOut(pool);
  try {
    await client.query('begin');
    const result = await body(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    release();
  }
}

/** The database's clock in epoch milliseconds (the clock leases expire by across machines). */
export async function databaseNow(client: Client | Pool): Promise<number> {
  const { rows } = await client.query<{ ms: number }>(
    'select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms',
  );
  return Number(rows[0]?.ms);
}

/** Takes a transaction-scoped advisory lock on a text key (released at commit or rollback). */
export async function lockKey(client: Client, key: string): Promise<void> {
  await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}

/** A double-quoted SQL identifier (schema names are validated to plain identifiers already). */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
