import { hostname } from 'node:os';
import {
  type Fence,
  fenceOf,
  formatLeaseHolder,
  type Lease,
  type LeasePort,
  SwitchyardError,
} from '@switchyard/core';
import { readStartToken } from '@switchyard/utils';

/** How long a task's lease lasts without renewal (the engine renews at a third of it). */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * The leases this run holds: a task is leased before its first write in the run, every write
 * for it carries the lease's fence, leases are renewed in the background, and released when
 * the run ends. A task whose lease was taken over is reported through `onLost` (the store
 * refuses every later write for it).
 */
export class TaskLeases {
  readonly holder: string;
  readonly #held = new Map<string, Lease>();
  readonly #taking = new Map<string, Promise<Lease>>();
  /** Shared backlog: leases come only from deliveries ({@link adopt}), never on demand. */
  adoptedOnly = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly port: LeasePort,
    runId: string,
    readonly ttlMs = DEFAULT_LEASE_MS,
    private readonly onLost: (task: string) => void = () => undefined,
  ) {
    const startToken = readStartToken(process.pid);
    this.holder = formatLeaseHolder({
      host: hostname(),
      pid: process.pid,
      ...(startToken ? { startToken } : {}),
      run: runId,
    });
  }

  /** The fence of the task's lease, taking the lease first when this run has none. */
  fenceFor(task: string): Promise<Fence> {
    const held = this.#held.get(task);
    if (held) return Promise.resolve(fenceOf(held));
    let taking = this.#taking.get(task);
    if (!taking) {
      taking = this.#take(task).finally(() => this.#taking.delete(task));
      this.#taking.set(task, taking);
    }
    return taking.then(fenceOf);
  }

  /** Holds a lease taken elsewhere (a shared backlog's delivery): renewed and fenced as ours. */
  adopt(lease: Lease): void {
    this.#held.set(lease.task, lease);
  }

  /** True while this run holds the task's lease. */
  holds(task: string): boolean {
    return this.#held.has(task);
  }

  /**
   * Checks with the store, right before an effect the store cannot fence (a push), that the
   * task's lease is still this run's, and extends it: `SY_LEASE_LOST` when it moved.
   */
  async confirm(task: string): Promise<void> {
    const held = this.#held.get(task);
    const [renewed] = held ? await this.port.renew([held], this.ttlMs) : [undefined];
    if (renewed) {
      this.#held.set(task, renewed);
      return;
    }
    if (held) {
      this.#held.delete(task);
      this.onLost(task);
    }
    throw new SwitchyardError(
      'SY_LEASE_LOST',
      `${task}: this dispatcher no longer holds its lease; it lands nothing for it.`,
      { hint: 'Another dispatcher took the task over after this one missed its lease renewals.' },
    );
  }

  /** Ends this run's lease on one task (it finished there). */
  async release(task: string): Promise<void> {
    const held = this.#held.get(task);
    this.#held.delete(task);
    if (held) await this.port.release(held);
  }

  /** Renews every held lease now and then every third of the lease time, until `stop`. */
  start(): void {
    this.#timer ??= setInterval(() => void this.renew(), Math.max(1, this.ttlMs / 3));
    this.#timer.unref();
  }

  async renew(): Promise<void> {
    const leases = [...this.#held.values()];
    if (leases.length === 0) return;
    const renewed = await this.port.renew(leases, this.ttlMs).catch(() => leases.map(() => null));
    renewed.forEach((lease, i) => {
      const task = (leases[i] as Lease).task;
      // Released (or replaced) while the renewal was on its way: not this renewal's to keep.
      if (this.#held.get(task) !== leases[i]) return;
      if (lease) this.#held.set(task, lease);
      else if (lease === undefined) {
        this.#held.delete(task);
        this.onLost(task);
      }
    });
  }

  /** Stops renewing and releases every lease of this run. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([...this.#taking.values()]);
    const held = [...this.#held.values()];
    this.#held.clear();
    await Promise.allSettled(held.map((lease) => this.port.release(lease)));
  }

  async #take(task: string): Promise<Lease> {
    if (this.adoptedOnly)
      throw new SwitchyardError(
        'SY_LEASE_LOST',
        `${task}: this dispatcher does not hold its lease (the shared backlog gave it to another, or took it back); it writes nothing for it.`,
      );
    const result = await this.port.acquire(task, this.holder, this.ttlMs);
    if (!result.ok)
      throw new SwitchyardError(
        'SY_LEASE_LOST',
        `${task} is leased by ${result.held.holder} until ${new Date(result.held.expiresAt).toISOString()}; this dispatcher leaves it alone.`,
        {
          hint: 'Another dispatcher works on this task; it is taken over only once that lease expires.',
        },
      );
    this.#held.set(task, result.lease);
    return result.lease;
  }
}
