import { describeStoreConformance } from '@switchyard/testkit/store-conformance';
import { describe, it } from 'vitest';
import { createMemoryStore, type MemoryStoreData } from './index.js';

// The memory store shares one data object between the handles of a location.
describeStoreConformance(
  { describe, it },
  {
    name: 'memory',
    durable: false,
    // One array, only ever appended to: nothing can replace it under a reader.
    eventLogReset: 'never',
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
