export { initStore, type StoreInitResult, type StoreStatus, storeStatus } from './admin.js';
export {
  BACKLOG_CHANNEL,
  type BacklogEntry,
  type BacklogStatus,
  type BacklogTask,
  type Delivery,
  type PgBacklog,
} from './backlog.js';
export { SCHEMA_VERSION } from './migrations.js';
export {
  openPostgresStore,
  openPostgresStoreAt,
  type PostgresStore,
  type PostgresStoreOptions,
} from './store.js';
export { isPostgresUrl, type PostgresLocation, parseStoreUrl, redact } from './url.js';
