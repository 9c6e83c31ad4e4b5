import { SwitchyardError } from '@switchyard/core';
import { type Client, ident, lockKey, type Pool, transaction } from './db.js';
import type { PostgresLocation } from './url.js';

/**
 * switchyard's own schema, as numbered migrations: each runs once, in order, in one
 * transaction, recorded in `migrations`. A released migration is never edited: a change is a
 * new one. Every table has a `scope` column: one database can hold the backlogs of several
 * repositories (a scope each), sharing the lease-token sequence.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: (s: string) => string }[] =
  [
    {
      version: 1,
      name: 'ports, backlog',
      sql: (s) => `
create sequence ${s}.lease_tokens;
create table ${s}.leases (
  scope text not null, task text not null, holder text not null, token bigint not null,
  expires_at bigint not null, acquired_at bigint not null, released boolean not null,
  primary key (scope, task));
create table ${s}.task_states (
  scope text not null, task text not null, version integer not null, state jsonb not null,
  primary key (scope, task));
create table ${s}.claims (
  scope text not null, path text not null, task text not null, primary key (scope, path));
create index claims_task on ${s}.claims (scope, task);
create table ${s}.claim_holders (
  scope text not null, task text not null, since text not null, primary key (scope, task));
create sequence ${s}.event_seq;
create table ${s}.events (
  scope text not null, seq bigint not null, event jsonb not null,
  at timestamptz not null default now(), primary key (scope, seq));
create table ${s}.work_log (
  id bigserial primary key, scope text not null, grp text not null, archive integer,
  row jsonb not null);
create index work_log_open on ${s}.work_log (scope, grp, archive, id);
create table ${s}.work_log_archives (
  scope text not null, grp text not null, count integer not null, primary key (scope, grp));
create table ${s}.attempts (
  scope text not null, attempt_id text not null, task text not null, started_at text not null,
  ref jsonb not null, locator jsonb not null, primary key (scope, attempt_id));
create table ${s}.sessions (
  scope text not null, id text not null, plan jsonb not null, status jsonb not null,
  primary key (scope, id));
create table ${s}.session_events (
  id bigserial primary key, scope text not null, session text not null, event jsonb not null);
create index session_events_session on ${s}.session_events (scope, session, id);
create table ${s}.escalations (
  scope text not null, task text not null, bundle jsonb not null, interview jsonb,
  primary key (scope, task));
create table ${s}.worktree_records (
  scope text not null, task text not null, record jsonb not null, primary key (scope, task));
create table ${s}.apply_journals (
  scope text not null, task text not null, journal jsonb not null, primary key (scope, task));
create table ${s}.schedules (
  scope text not null, id text not null, schedule jsonb not null, primary key (scope, id));
create table ${s}.schedule_runs (
  scope text not null, id text not null, runs jsonb not null, primary key (scope, id));
create table ${s}.targets (
  scope text not null, target text not null, state jsonb not null, primary key (scope, target));
create table ${s}.backlog (
  scope text not null, task text not null, plan_hash text not null, depends_on text[] not null,
  status text not null, entry jsonb not null, published_by text not null,
  published_at timestamptz not null default now(), updated_at timestamptz not null default now(),
  primary key (scope, task));
create index backlog_status on ${s}.backlog (scope, status);
`,
    },
    {
      version: 2,
      name: 'backlog archives',
      sql: (s) => `alter table ${s}.backlog add column archive jsonb;`,
    },
    {
      version: 3,
      name: 'session monitors',
      sql: (s) => `alter table ${s}.sessions add column monitor jsonb;`,
    },
  ];

/** The schema version this switchyard needs. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** The applied schema version (0: no switchyard schema in the database). */
export async function appliedVersion(db: Pool | Client, schema: string): Promise<number> {
  const { rows } = await db.query<{ version: number | null }>(
    `select case when to_regclass($1) is null then null else 1 end as version`,
    [`${ident(schema)}.migrations`],
  );
  if (rows[0]?.version === null) return 0;
  const applied = await db.query<{ version: number }>(
    `select coalesce(max(version), 0) as version from ${ident(schema)}.migrations`,
  );
  return Number(applied.rows[0]?.version ?? 0);
}

/** Applies every pending migration (under an advisory lock: concurrent inits take turns). */
export async function migrate(pool: Pool, schema: string): Promise<number[]> {
  const s = ident(schema);
  return transaction(pool, async (client) => {
    await lockKey(client, `switchyard-migrate:${schema}`);
    await client.query(`create schema if not exists ${s}`);
    await client.query(`create table if not exists ${s}.migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const current = await appliedVersion(client, schema);
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql(s));
      await client.query(`insert into ${s}.migrations (version, name) values ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** Throws `SY_STORE_SCHEMA` with the fix unless the schema is at this switchyard's version. */
export async function requireSchema(pool: Pool, location: PostgresLocation): Promise<void> {
  const problem = schemaProblem(await appliedVersion(pool, location.schema), location);
  if (problem) throw problem;
}

/** `SY_STORE_SCHEMA` for an applied version other than this switchyard's, with the fix. */
export function schemaProblem(
  version: number,
  location: PostgresLocation,
): SwitchyardError | undefined {
  if (version === SCHEMA_VERSION) return undefined;
  const what =
    version === 0
      ? `has no switchyard schema "${location.schema}"`
      : version < SCHEMA_VERSION
        ? `has schema version ${version}, this switchyard needs ${SCHEMA_VERSION}`
        : `has schema version ${version}, newer than this switchyard (${SCHEMA_VERSION})`;
  return new SwitchyardError('SY_STORE_SCHEMA', `The store ${location.display} ${what}.`, {
    hint:
      version > SCHEMA_VERSION
        ? 'Another machine runs a newer switchyard: upgrade switchyard on this machine (a schema is never migrated backwards).'
        : `Run \`switchyard store init --store ${location.display}\` (creates or migrates the schema; safe to repeat).`,
  });
}
