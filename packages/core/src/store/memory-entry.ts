// The `@switchyard/core/memory-store` entry: a store in memory, for in-process tests.
export {
  createMemoryStore,
  type MemoryStore,
  type MemoryStoreData,
  type MemoryStoreOptions,
} from './memory/memory-store.js';
