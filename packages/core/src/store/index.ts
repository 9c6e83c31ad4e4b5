export type { AttemptIndexPort, AttemptRef, PutLocatorOptions } from './attempt-index-port.js';
export type { BacklogStatus, BacklogView, SharedBacklogPort } from './backlog-port.js';
export type { ClaimConflict, ClaimPort, ClaimRecord, ClaimResult } from './claim-port.js';
export type {
  EscalationLocation,
  EscalationPort,
  StoredEscalation,
} from './escalation-port.js';
export type { EventLogPort, EventPage, StoredEvent } from './event-log-port.js';
export type { Fence, FencedWrite } from './fence.js';
export type { IsolationPort, IsolationWrite } from './isolation-port.js';
export {
  fenceOf,
  formatLeaseHolder,
  type Lease,
  type LeaseHolderIdentity,
  type LeasePort,
  type LeaseResult,
  parseLeaseHolder,
} from './lease-port.js';
export {
  keepingLastFire,
  MISSED_KEPT,
  type Schedule,
  type SchedulePort,
  type ScheduleRuns,
} from './schedule-port.js';
export type { SessionPort } from './session-port.js';
export type { Store, StoreClockOptions } from './store.js';
export { fenceHolds, leaseLost, versionConflict } from './store-errors.js';
export type { TargetState, TargetStatePort } from './target-state-port.js';
export type {
  PutTaskStateOptions,
  TaskStateChanges,
  TaskStateCursor,
  TaskStatePort,
  Versioned,
} from './task-state-port.js';
export type { OpenStartsOptions, OpenWorkLogStart, WorkLogPort } from './work-log-port.js';
