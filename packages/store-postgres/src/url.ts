import { SwitchyardError } from '@switchyard/core';
import { redactStoreUrl } from '@switchyard/utils';

/** Where a PostgreSQL store is: the connection string, and the names it uses in the database. */
export interface PostgresLocation {
  /** The connection string as given (credentials included: never print it). */
  url: string;
  /** The URL without its password, for messages and `status`. */
  display: string;
  /** Schema of switchyard's own tables (`?schema=`, default `switchyard`). */
  schema: string;
  /** Schema pg-boss installs its tables in (`?bossSchema=`, default `<schema>_boss`). */
  bossSchema: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,49}$/;

/** Whether a store setting names a PostgreSQL store rather than the file store. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * Reads a `postgres://user:password@host:port/database?schema=…` store URL. Anything that is
 * not a usable PostgreSQL URL is `SY_STORE_URL` with the offending value (credentials removed)
 * and what a valid one looks like.
 */
export function parseStoreUrl(value: string): PostgresLocation {
  const bad = (why: string) =>
    new SwitchyardError('SY_STORE_URL', `Store URL "${redact(value)}": ${why}.`, {
      hint: 'Use `file` (the default) or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME] (given by --store, SWITCHYARD_STORE or the config key `store`).',
    });
  if (!isPostgresUrl(value)) throw bad('only `file` and postgres:// URLs are stores');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw bad('it is not a URL');
  }
  if (!parsed.hostname) throw bad('it names no host');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database || database.includes('/'))
    throw bad('it names no database (the path after the host)');
  if (parsed.port && !(Number(parsed.port) > 0 && Number(parsed.port) < 65536))
    throw bad(`port ${parsed.port} is out of range`);
  const schema = parsed.searchParams.get('schema') ?? 'switchyard';
  const bossSchema = parsed.searchParams.get('bossSchema') ?? `${schema}_boss`;
  for (const [key, name] of [
    ['schema', schema],
    ['bossSchema', bossSchema],
  ] as const)
    if (!IDENTIFIER.test(name))
      throw bad(`${key} "${name}" must be a lower-case SQL identifier (a-z, 0-9, _; at most 50)`);
  if (schema === bossSchema) throw bad('schema and bossSchema must differ');
  // pg reads unknown query parameters as connection options: keep only what it understands.
  const connection = new URL(parsed.href);
  connection.searchParams.delete('schema');
  connection.searchParams.delete('bossSchema');
  return { url: connection.href, display: redact(value), schema, bossSchema };
}

/** The URL without its password, for anything a person or a log sees. */
export const redact = redactStoreUrl;
