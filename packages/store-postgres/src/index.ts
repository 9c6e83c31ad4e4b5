export { initStore, type StoreStatus, storeStatus } from './admin.js';

export { openPostgresStore, openPostgresStoreAt, type PostgresStore } from './store.js';
