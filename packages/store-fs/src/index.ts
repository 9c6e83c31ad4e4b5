export { openClaimStore, readClaims } from './claims/claim-store.js';
// Today's by-path record functions, for the modules not yet on the ports (see
// state-access.test.ts for who still uses them and why).
export { acquireFileMutex } from './claims/file-mutex.js';
export {
  type EscalationEntry,
  escalationEntry,
  isOpen,
  readBundle,
  recordResolution,
  writeEscalation,
} from './escalation/escalation-store.js';
export { readEvents } from './events/read-events.js';
export { openFsStore, openFsStoreAt } from './fs-store.js';

export {
  acquireWorkspaceLock,
  type LockHolder,
  readLockHolder,
  type WorkspaceLock,
} from './lock/workspace-lock.js';
export { newSessionId, SessionStore } from './session/session-store.js';
export { type ChangeBaseline, type ChangeStore, openChangeStore } from './state/change-store.js';
export type { Snapshot } from './state/snapshot-entry.js';
export { openStateStore } from './state/state-store.js';
export { formatWorkLogRow, WORK_LOG_HEADER } from './worklog/work-log-format.js';
