export { firesBetween, parseCron } from './cron.js';
export { runDaemon } from './daemon.js';
export type { DaemonEvent, DaemonOptions } from './daemon-types.js';
export { openSharedSchedules, SCHEDULE_SCOPE, type SharedSchedules } from './shared.js';
export {
  loadRuns,
  loadSchedules,
  runsPath,
  type Schedule,
  type ScheduleRuns,
  saveRuns,
  saveSchedules,
  schedulesPath,
  stateHome,
} from './store.js';
export { systemdUserUnit } from './systemd-unit.js';
