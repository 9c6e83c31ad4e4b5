// @switchyard/store-memory: a store in memory, for in-process tests.
export {
  createMemoryStore,
  type MemoryStore,
  type MemoryStoreData,
  type MemoryStoreOptions,
} from './memory-store.js';
