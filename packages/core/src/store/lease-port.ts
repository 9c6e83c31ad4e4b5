import type { TaskId } from '../task/types.js';
import type { Fence } from './fence.js';

/**
 * A per-task lease: the unit of ownership. One holder (a dispatcher on one machine) owns a
 * task while its lease is current; every write it makes for the task carries the lease's
 * fencing token ({@link Fence}).
 */
export interface Lease {
  task: TaskId;
  /** Who holds it, e.g. `host:pid:run`; opaque to the store. */
  holder: string;
  /** Fencing token: strictly greater than every token issued for this task before. */
  token: number;
  /** Epoch ms after which another holder may take the lease (steal it). */
  expiresAt: number;
  /** Epoch ms when this token was issued. */
  acquiredAt: number;
}

/** The outcome of {@link LeasePort.acquire}: the lease, or the current holder's live lease. */
export type LeaseResult = { ok: true; lease: Lease } | { ok: false; held: Lease };

/**
 * Per-task leases with fencing tokens, granted by the store.
 *
 * - `acquire` grants the lease when nobody holds it, when its lease has expired (a steal: a new,
 *   greater token; the old holder's writes are refused from then on), or when the same holder
 *   already holds it (then it is renewed, same token). A live lease of another holder is
 *   refused with that lease.
 * - `renew` extends leases whose token is still current, even past their expiry as long as
 *   nobody stole them; a lease whose token moved is lost (`undefined` in its place).
 * - `release` ends a lease early (a no-op when its token already moved).
 *
 * Expiry is judged by the store's clock. Lease writes survive a crash of the process that made
 * them once the promise resolved (a power loss may lose them: every holder on that machine
 * died with it, so no stale holder is left to be fenced).
 */
export interface LeasePort {
  acquire(task: TaskId, holder: string, ttlMs: number): Promise<LeaseResult>;
  /** One entry per lease given: the renewed lease, or undefined when it was lost. */
  renew(leases: readonly Lease[], ttlMs: number): Promise<(Lease | undefined)[]>;
  release(lease: Lease): Promise<void>;
  /** The task's lease (current or expired, never released), if any. */
  get(task: TaskId): Promise<Lease | undefined>;
  /** Every lease, sorted by task id. */
  list(): Promise<Lease[]>;
}

/** The fence of a lease. */
export function fenceOf(lease: Lease): Fence {
  return { task: lease.task, token: lease.token };
}

/** Who a dispatcher is, as its lease holder string says it. */
export interface LeaseHolderIdentity {
  host: string;
  pid: number;
  /** The process's start token (PID reuse guard), when the system has one. */
  startToken?: string;
  run: string;
}

/**
 * The holder string of a dispatcher: `<host>/<pid>/<startToken>/<run>`. A store on one
 * machine may read it back ({@link parseLeaseHolder}) and treat the lease of a process it
 * knows to be dead as expired at once, so a restarted dispatcher resumes without waiting.
 */
export function formatLeaseHolder(who: LeaseHolderIdentity): string {
  return `${who.host}/${who.pid}/${who.startToken ?? '-'}/${who.run}`;
}

/** The identity in a holder string made by {@link formatLeaseHolder}, or undefined. */
export function parseLeaseHolder(holder: string): LeaseHolderIdentity | undefined {
  const m = /^([^/]+)\/(\d+)\/([^/]+)\/([^/]+)$/.exec(holder);
  if (!m) return undefined;
  const [, host = '', pid = '', startToken = '-', run = ''] = m;
  return { host, pid: Number(pid), ...(startToken === '-' ? {} : { startToken }), run };
}
