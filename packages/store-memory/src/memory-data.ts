import type {
  ApplyJournal,
  AttemptLocator,
  AttemptRef,
  Lease,
  RunEvent,
  Schedule,
  ScheduleRuns,
  SessionMonitor,
  SessionPlan,
  SessionStatus,
  StoredEscalation,
  TargetState,
  TaskState,
  WorkLogRow,
  WorktreeRecord,
} from '@switchyard/core';

/**
 * What a memory store holds. Several store handles may share one (two "dispatchers" in one
 * test, each with its own clock); every value goes in and out as a copy, as if serialized.
 */
export interface MemoryStoreData {
  tasks: Map<string, { state: TaskState; version: number }>;
  /** Current and released leases; `released` keeps the last token so tokens never repeat. */
  leases: Map<string, Lease & { released?: boolean }>;
  claims: Map<string, { paths: string[]; since: string }>;
  events: RunEvent[];
  workLogs: Map<string, WorkLogRow[]>;
  archivedWorkLogs: Map<string, WorkLogRow[][]>;
  attempts: Map<string, { ref: AttemptRef; locator: AttemptLocator }>;
  sessions: Map<
    string,
    { plan: SessionPlan; status: SessionStatus; events: RunEvent[]; monitor?: SessionMonitor }
  >;
  escalations: Map<string, StoredEscalation>;
  records: Map<string, WorktreeRecord>;
  journals: Map<string, ApplyJournal>;
  schedules: Map<string, Schedule>;
  scheduleRuns: Map<string, ScheduleRuns>;
  targets: Map<string, TargetState>;
}

/** An empty memory store. */
export function emptyMemoryData(): MemoryStoreData {
  return {
    tasks: new Map(),
    leases: new Map(),
    claims: new Map(),
    events: [],
    workLogs: new Map(),
    archivedWorkLogs: new Map(),
    attempts: new Map(),
    sessions: new Map(),
    escalations: new Map(),
    records: new Map(),
    journals: new Map(),
    schedules: new Map(),
    scheduleRuns: new Map(),
    targets: new Map(),
  };
}

/** A deep copy (values cross the store boundary by value, as they would through a file). */
export const copy = <T>(value: T): T => structuredClone(value);

/** Keys of a map, sorted. */
export const sortedKeys = (map: Map<string, unknown>): string[] => [...map.keys()].sort();
