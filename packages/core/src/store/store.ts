import type { AttemptIndexPort } from './attempt-index-port.js';
import type { ClaimPort } from './claim-port.js';
import type { EscalationPort } from './escalation-port.js';
import type { EventLogPort } from './event-log-port.js';
import type { IsolationPort } from './isolation-port.js';
import type { LeasePort } from './lease-port.js';
import type { SchedulePort } from './schedule-port.js';
import type { SessionPort } from './session-port.js';
import type { TargetStatePort } from './target-state-port.js';
import type { TaskStatePort } from './task-state-port.js';
import type { WorkLogPort } from './work-log-port.js';

/**
 * Every durable fact of a workspace's runs, behind ports. The engine receives a store and
 * never builds a file path of its own; `store-fs` keeps today's files under
 * `agent-task/.switchyard/`, a database store keeps the same facts in tables. Every port
 * method returns a promise; see each port for what is durable when it resolves. The contract
 * is in `packages/core/STORE.md`; `@switchyard/testkit/store-conformance` checks it.
 */
export interface Store {
  /** `fs`, `memory`, `postgres`…: for messages and `status`. */
  readonly kind: string;
  /** Where the store is, for people (a folder, a URL without credentials). */
  readonly location: string;
  readonly tasks: TaskStatePort;
  readonly leases: LeasePort;
  readonly claims: ClaimPort;
  readonly events: EventLogPort;
  readonly workLog: WorkLogPort;
  readonly attempts: AttemptIndexPort;
  readonly sessions: SessionPort;
  readonly escalations: EscalationPort;
  readonly isolation: IsolationPort;
  readonly schedules: SchedulePort;
  readonly targets: TargetStatePort;
  /** Waits for pending background work (fsyncs) and releases what the store holds open. */
  close(): Promise<void>;
}

/** Options every store takes. */
export interface StoreClockOptions {
  /** Epoch ms: the clock leases expire by (tests pass a fake one). */
  now?: () => number;
  /** The timers a store's deferred writes wait on (default the system's; tests pass fake ones). */
  timers?: { after(ms: number, fn: () => void): () => void };
}
