import { createMemoryStore, type MemoryStoreData } from '@switchyard/core/memory-store';
import { describe, it } from 'vitest';
import { describeStoreConformance } from './index.js';

// The memory store shares one data object between the handles of a location.
describeStoreConformance(
  { describe, it },
  {
    name: 'memory',
    durable: false,
    async create() {
      let data: MemoryStoreData | undefined;
      return {
        captureRoot: '/captures',
        async open({ now }) {
          const store = createMemoryStore({ now, ...(data ? { data } : {}) });
          data = store.data;
          return store;
        },
      };
    },
  },
);
