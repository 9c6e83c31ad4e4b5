export type { EventFeed, NumberedEvent } from './event-relay.js';
export { assertLoopbackBind, LOOPBACK, maskSecrets, type Refusal, refusalOf } from './guard.js';
export { type MonitorOptions, type MonitorServer, startMonitor } from './server.js';
export {
  type MonitorSnapshot,
  type MonitorTask,
  type MonitorTaskState,
  SnapshotReader,
} from './snapshot.js';
export {
  type MonitorPatch,
  type NumberedSnapshot,
  SnapshotDiffer,
} from './snapshot-diff.js';
export { tailFile } from './tail.js';
