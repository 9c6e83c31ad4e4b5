import { bossVersion, noBossSchema, startBoss } from './boss.js';
import { connectionError, createPool, ident, type Pool } from './db.js';
import { appliedVersion, migrate, SCHEMA_VERSION, schemaProblem } from './migrations.js';
import { parseStoreUrl } from './url.js';

/** What `switchyard store init` did. */
export interface StoreInitResult {
  location: string;
  /** Migrations applied now (empty: the schema was current). */
  applied: number[];
  schemaVersion: number;
  bossSchema: string;
  bossVersion: number | null;
}

/**
 * Creates or migrates switchyard's schema and installs pg-boss in its own schema. Safe to
 * repeat and to run from several machines at once (migrations take an advisory lock).
 */
export async function initStore(url: string): Promise<StoreInitResult> {
  const location = parseStoreUrl(url);
  const pool = createPool(location, 2);
  try {
    const applied = await migrate(pool, location.schema);
    const problem = schemaProblem(await appliedVersion(pool, location.schema), location);
    if (problem) throw problem;
    const boss = await startBoss(location, { migrate: true, supervise: false });
    const bossVersion = await boss.schemaVersion();
    await boss.stop({ graceful: false, timeout: 5000 });
    return {
      location: location.display,
      applied,
      schemaVersion: await appliedVersion(pool, location.schema),
      bossSchema: location.bossSchema,
      bossVersion,
    };
  } catch (error) {
    throw connectionError(error, location);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** What `switchyard store status` reports. */
export interface StoreStatus {
  location: string;
  reachable: boolean;
  /** The server's version string, when reachable. */
  server?: string;
  /** Applied schema version (0: none) and the one this switchyard needs. */
  schemaVersion: number;
  expectedVersion: number;
  current: boolean;
  bossSchema: string;
  /** pg-boss's schema version, or null when it is not installed. */
  bossVersion: number | null;
  /** Rows per scope: backlog tasks by status, live leases (neither released nor expired by
   * the database's clock), claims, events. */
  scopes: {
    scope: string;
    backlog: Record<string, number>;
    leases: number;
    claims: number;
    events: number;
  }[];
  /** Why it is not usable, with the fix (absent when usable). */
  problem?: { code: string; message: string; hint?: string };
}

/** Checks a store without changing it: reachable, schema version, pg-boss version, counts. */
export async function storeStatus(url: string): Promise<StoreStatus> {
  const location = parseStoreUrl(url);
  const pool = createPool(location, 1);
  const status: StoreStatus = {
    location: location.display,
    reachable: false,
    schemaVersion: 0,
    expectedVersion: SCHEMA_VERSION,
    current: false,
    bossSchema: location.bossSchema,
    bossVersion: null,
    scopes: [],
  };
  try {
    const server = await pool.query<{ server_version: string }>('show server_version');
    status.reachable = true;
    status.server = server.rows[0]?.server_version;
    status.schemaVersion = await appliedVersion(pool, location.schema);
    status.current = status.schemaVersion === SCHEMA_VERSION;
    status.bossVersion = await bossVersion(pool, location.bossSchema);
    if (status.current) status.scopes = await counts(pool, ident(location.schema));
    const problem =
      schemaProblem(status.schemaVersion, location) ??
      (status.bossVersion === null ? noBossSchema(location) : undefined);
    if (problem)
      status.problem = {
        code: problem.code,
        message: problem.message,
        ...(problem.hint ? { hint: problem.hint } : {}),
      };
  } catch (error) {
    const mapped = connectionError(error, location) as {
      code?: string;
      message: string;
      hint?: string;
    };
    status.problem = {
      code: mapped.code ?? 'SY_STORE_UNREACHABLE',
      message: mapped.message,
      ...(mapped.hint ? { hint: mapped.hint } : {}),
    };
  } finally {
    await pool.end().catch(() => undefined);
  }
  return status;
}

async function counts(pool: Pool, s: string): Promise<StoreStatus['scopes']> {
  const { rows } = await pool.query<{
    scope: string;
    backlog: Record<string, number> | null;
    leases: number;
    claims: number;
    events: number;
  }>(
    `with scopes as (
       select scope from ${s}.backlog union select scope from ${s}.leases
       union select scope from ${s}.events union select scope from ${s}.task_states)
     select sc.scope,
       (select jsonb_object_agg(status, n) from
          (select status, count(*)::int n from ${s}.backlog b where b.scope = sc.scope group by status) x) as backlog,
       (select count(*)::int from ${s}.leases l where l.scope = sc.scope and not l.released
          and l.expires_at > (extract(epoch from clock_timestamp()) * 1000)) as leases,
       (select count(*)::int from ${s}.claims c where c.scope = sc.scope) as claims,
       (select count(*)::int from ${s}.events e where e.scope = sc.scope) as events
     from scopes sc order by sc.scope collate "C"`,
  );
  return rows.map((row) => ({ ...row, backlog: row.backlog ?? {} }));
}
