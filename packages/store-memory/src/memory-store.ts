import type { Store, StoreClockOptions } from '@switchyard/core';
import { emptyMemoryData, type MemoryStoreData } from './memory-data.js';
import { memoryClaims, memoryLeases, memoryTasks } from './memory-ownership.js';
import {
  memoryAttempts,
  memoryEscalations,
  memoryEvents,
  memoryIsolation,
  memorySessions,
  memoryWorkLog,
} from './memory-records.js';
import { memorySchedules, memoryTargets } from './memory-shared.js';

export type { MemoryStoreData } from './memory-data.js';

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions extends StoreClockOptions {
  /** Share another memory store's data (a second holder in the same test). */
  data?: MemoryStoreData;
}

/** A memory store: the data it holds, for a second handle on it. */
export interface MemoryStore extends Store {
  readonly data: MemoryStoreData;
}

/**
 * A store that keeps everything in this process's memory: for in-process engine tests (no
 * files, no fsync) and as the reference behaviour of the store contract. Nothing survives the
 * process; it passes every conformance case except the crash of a holder process.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const data = options.data ?? emptyMemoryData();
  const now = options.now ?? Date.now;
  return {
    kind: 'memory',
    location: 'memory',
    data,
    tasks: memoryTasks(data, now),
    leases: memoryLeases(data, now),
    claims: memoryClaims(data, now),
    events: memoryEvents(data),
    workLog: memoryWorkLog(data),
    attempts: memoryAttempts(data),
    sessions: memorySessions(data),
    escalations: memoryEscalations(data),
    isolation: memoryIsolation(data),
    schedules: memorySchedules(data),
    targets: memoryTargets(data, now),
    async close() {},
  };
}
