import type { Store, StoreClockOptions } from '@switchyard/core';
import type { PgBoss } from 'pg-boss';
import { type PgBacklog, pgBacklog } from './backlog.js';
import { startBoss } from './boss.js';
import { type PgContext, pgContext } from './context.js';
import { connectionError, createPool, type Pool } from './db.js';
import { migrate, requireSchema } from './migrations.js';
import { pgClaims } from './pg-claims.js';
import { followEvents, pgEvents } from './pg-events.js';
import { pgIsolation } from './pg-isolation.js';
import { pgLeases } from './pg-leases.js';
import { pgAttempts, pgEscalations, pgSessions, pgWorkLog } from './pg-records.js';
import { pgSchedules, pgTargets } from './pg-shared.js';
import { pgTasks } from './pg-tasks.js';
import { type PostgresLocation, parseStoreUrl } from './url.js';

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions extends StoreClockOptions {
  /** `postgres://user:password@host:port/database[?schema=NAME&bossSchema=NAME]`. */
  url: string;
  /**
   * The backlog this handle works on: one repository (the CLI derives it from the source
   * branch's remote URL). Handles with the same scope share every record; other scopes are
   * invisible to them. Default `default`.
   */
  scope?: string;
  /** Connections this handle may hold (default 4). */
  poolSize?: number;
  /**
   * How long the server lets this handle's transaction sit idle before it ends the session
   * (default 15 s): a frozen holder inside a transaction cannot hold a steal back longer.
   */
  idleInTransactionMs?: number;
  /** Create or migrate the schema first (tests; the CLI's `store init`). Default false. */
  migrate?: boolean;
}

/** The PostgreSQL store: the core ports, and live following of the event log. */
export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  readonly scope: string;
  readonly pgLocation: PostgresLocation;
  /**
   * Replays the events after `after`, then delivers each new one as it is appended on any
   * machine (LISTEN/NOTIFY). `stop()` ends it.
   */
  followEvents(
    after: number,
    onEvent: (event: { seq: number; event: import('@switchyard/core').RunEvent }) => void,
  ): Promise<{ stop(): Promise<void> }>;
  /**
   * The shared backlog of this scope (publish, take, finish, requeue, watch). Starts pg-boss
   * on first use (refused with `SY_STORE_SCHEMA` when `store init` never installed it).
   */
  backlog(): Promise<PgBacklog>;
  /** For tools in this package: the pool and the shared context. */
  readonly context: PgContext;
}

/**
 * Opens the PostgreSQL store at `url` for one scope. Without a clock the database's clock
 * judges lease expiry (one clock for every machine). Refuses with `SY_STORE_URL` (a bad URL),
 * `SY_STORE_UNREACHABLE` (no server, bad login, no database) or `SY_STORE_SCHEMA` (run
 * `switchyard store init`), each with the fix.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const location = parseStoreUrl(options.url);
  const pool = createPool(location, options.poolSize, options.idleInTransactionMs);
  try {
    if (options.migrate) await migrate(pool, location.schema);
    await requireSchema(pool, location);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw connectionError(error, location);
  }
  return assemble(pool, location, options);
}

function assemble(
  pool: Pool,
  location: PostgresLocation,
  options: PostgresStoreOptions,
): PostgresStore {
  const scope = options.scope ?? 'default';
  const display = scope === 'default' ? location.display : `${location.display} (${scope})`;
  const ctx = pgContext({
    pool,
    schema: location.schema,
    scope,
    location: display,
    ...(options.now ? { now: options.now } : {}),
  });
  const events = pgEvents(ctx);
  const workLog = pgWorkLog(ctx);
  let closed: Promise<void> | undefined;
  let boss: Promise<PgBoss> | undefined;
  let backlog: Promise<PgBacklog> | undefined;
  return {
    kind: 'postgres',
    location: display,
    scope,
    pgLocation: location,
    context: ctx,
    tasks: pgTasks(ctx),
    leases: pgLeases(ctx),
    claims: pgClaims(ctx),
    events,
    workLog,
    attempts: pgAttempts(ctx),
    sessions: pgSessions(ctx),
    escalations: pgEscalations(ctx),
    isolation: pgIsolation(ctx),
    schedules: pgSchedules(ctx),
    targets: pgTargets(ctx),
    followEvents: (after, onEvent) => followEvents(ctx, events, after, onEvent),
    backlog() {
      backlog ??= (async () => {
        boss ??= startBoss(location, { pool });
        return pgBacklog(ctx, await boss);
      })();
      return backlog;
    },
    close() {
      closed ??= workLog
        .flush()
        .catch(() => undefined)
        .then(async () => {
          const started = await boss?.catch(() => undefined);
          await started?.stop({ graceful: false, timeout: 5000 }).catch(() => undefined);
        })
        .then(() => pool.end());
      return closed;
    },
  };
}

/** `openPostgresStore` in the shape of a conformance-suite child opener: `(arg, { now })`. */
export function openPostgresStoreAt(
  arg: Pick<PostgresStoreOptions, 'url' | 'scope' | 'idleInTransactionMs'>,
  clock: StoreClockOptions = {},
): Promise<PostgresStore> {
  return openPostgresStore({ ...arg, ...clock });
}
