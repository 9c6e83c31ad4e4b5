import type { RunEvent } from '../events/event-schema.js';
import type { SessionMonitor, SessionPlan, SessionStatus } from '../session/session-schema.js';

/**
 * Sessions: one `switchyard run` and every resume of it. The plan is written once, durably,
 * with the first status; the status is replaced whole; the session's events are appended in
 * order (each stored before its promise resolves). A session's status names the process that
 * runs it, so a session is judged alive by the machine that ran it.
 */
export interface SessionPort {
  create(plan: SessionPlan, status: SessionStatus): Promise<void>;
  putStatus(status: SessionStatus): Promise<void>;
  getPlan(id: string): Promise<SessionPlan | undefined>;
  getStatus(id: string): Promise<SessionStatus | undefined>;
  /** Session ids, oldest first. */
  ids(): Promise<string[]>;
  appendEvent(id: string, event: RunEvent): Promise<void>;
  readEvents(id: string): Promise<RunEvent[]>;
  /** Records the monitor page a run of the session serves (replaced whole; kept). */
  putMonitor(id: string, monitor: SessionMonitor): Promise<void>;
  /** The monitor a run of the session serves or served, if any. */
  getMonitor(id: string): Promise<SessionMonitor | undefined>;
  /** Where a human finds the session's records (a folder, or a store URL). */
  locate(id: string): string;
}
