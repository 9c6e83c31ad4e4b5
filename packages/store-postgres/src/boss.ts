import { SwitchyardError } from '@switchyard/core';
import { PgBoss } from 'pg-boss';
import { type Client, ident, type Pool } from './db.js';
import type { PostgresLocation } from './url.js';

/** Options of the pg-boss instance a store starts for the backlog. */
export interface BossOptions {
  /** Install or migrate pg-boss's schema (`store init`); otherwise a missing one is refused. */
  migrate?: boolean;
  /** Run pg-boss's supervisor (expires deliveries a dead taker never settled). Default true. */
  supervise?: boolean;
  /** A pool on the database, to check that pg-boss is installed before starting it. */
  pool?: Pool;
}

/**
 * Starts pg-boss in the store's boss schema: its own pool of 2 connections, LISTEN/NOTIFY on, no
 * cron (switchyard's schedules are rows; see the README), errors turned into events, never
 * crashes.
 */
export async function startBoss(
  location: PostgresLocation,
  options: BossOptions = {},
): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: location.url,
    schema: location.bossSchema,
    max: 2,
    application_name: 'switchyard-boss',
    migrate: options.migrate === true,
    supervise: options.supervise !== false,
    schedule: false,
    useListenNotify: true,
  });
  boss.on('error', () => undefined);
  if (
    !options.migrate &&
    options.pool &&
    (await bossVersion(options.pool, location.bossSchema)) === null
  ) {
    throw noBossSchema(location);
  }
  await boss.start();
  return boss;
}

/** `SY_STORE_SCHEMA`: pg-boss is not installed in the store's boss schema. */
export function noBossSchema(location: PostgresLocation): SwitchyardError {
  return new SwitchyardError(
    'SY_STORE_SCHEMA',
    `The store ${location.display} has no pg-boss schema "${location.bossSchema}".`,
    { hint: `Run \`switchyard store init --store ${location.display}\` (safe to repeat).` },
  );
}

/** pg-boss's schema version in `schema`, or null when it is not installed there. */
export async function bossVersion(pool: Pool, schema: string): Promise<number | null> {
  const exists = await pool.query<{ found: string | null }>('select to_regclass($1) as found', [
    `${ident(schema)}.version`,
  ]);
  if (!exists.rows[0]?.found) return null;
  const { rows } = await pool.query<{ version: number }>(
    `select version from ${ident(schema)}.version limit 1`,
  );
  return rows[0] ? Number(rows[0].version) : null;
}

/** pg-boss's `db` option on a client inside switchyard's transaction: its writes commit with ours. */
export const inTransaction = (client: Client) => ({
  executeSql: (text: string, values?: unknown[]) => client.query(text, values as unknown[]),
});
