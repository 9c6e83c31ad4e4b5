export { SCHEMA_VERSION } from './migrations.js';
export {
  openPostgresStore,
  openPostgresStoreAt,
  type PostgresStore,
  type PostgresStoreOptions,
} from './store.js';
export { isPostgresUrl, type PostgresLocation, parseStoreUrl, redact } from './url.js';
