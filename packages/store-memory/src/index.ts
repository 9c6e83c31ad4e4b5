// @switchyard/store-memory: a store in memory, for in-process tests.
export { createMemoryStore, type MemoryStore, type MemoryStoreData } from './memory-store.js';
