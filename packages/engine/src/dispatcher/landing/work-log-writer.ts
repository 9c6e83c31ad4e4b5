import {
  type OpenStartsOptions,
  type OpenWorkLogStart,
  type SecretValue,
  SwitchyardError,
  type WorkLogPort,
  type WorkLogRow,
} from '@switchyard/core';
import { redactDeep } from '@switchyard/runner-kit';

/**
 * Writes the run's work-log rows through the store's work-log port. Rows of one group are
 * handed to the port in call order (the port keeps that order; the file store writes them
 * before `append` returns, so they survive a dispatcher crash). A failed write is a
 * retryable control-plane failure: FINISH rows that could not be written stay queued (in
 * order, per group) and go out again before the group's next row and at the end of the run;
 * while any stay queued, or the final flush failed, the run cannot exit 0.
 */
export class WorkLogWriter {
  readonly #pending = new Map<string, WorkLogRow[]>();
  readonly #inFlight = new Set<Promise<void>>();
  /** The last write of each group (the next one waits for it). */
  readonly #tails = new Map<string, Promise<void>>();
  #lastError: string | undefined;
  #flushError: string | undefined;

  /** `secrets`: masked in every cell (a gate's command line, a result) before it is stored. */
  constructor(
    private readonly port: WorkLogPort,
    private readonly secrets: readonly SecretValue[] = [],
  ) {}

  /**
   * Writes a START row (after the group's queued rows); rejects with `SY_WORK_LOG` when it
   * cannot (the attempt must then not start: an attempt without its START row would be
   * invisible in the log).
   */
  start(group: string, row: WorkLogRow): Promise<void> {
    return this.#write(group, [row], true);
  }

  /** Writes a FINISH (or other) row; on failure it is queued for a retry. Never throws. */
  finish(group: string, row: WorkLogRow): void {
    this.#write(group, [row], false).catch(() => undefined);
  }

  /** Retries every queued row and flushes the log; true when all is written and durable. */
  async flush(): Promise<boolean> {
    await this.#settled();
    for (const group of [...this.#pending.keys()])
      await this.#write(group, [], false).catch(() => undefined);
    try {
      await this.port.flush();
      this.#flushError = undefined;
    } catch (error) {
      this.#flushError = error instanceof Error ? error.message : String(error);
    }
    return this.#pending.size === 0 && this.#flushError === undefined;
  }

  /** Archives a group's log (after writing its queued rows). Rejects with `SY_WORK_LOG`. */
  async archive(group: string): Promise<string | undefined> {
    await this.#settled();
    if (this.#pending.has(group)) await this.#write(group, [], false);
    return this.port.archive(group);
  }

  /** The groups with an open log, once every row handed over before is written. */
  async groups(): Promise<string[]> {
    await this.#settled();
    return this.port.groups();
  }

  /**
   * The group's START rows without their FINISH row (`WorkLogPort.openStarts`), once every
   * row handed over before is written: a FINISH just written is never taken for missing.
   */
  async openStarts(group: string, options?: OpenStartsOptions): Promise<OpenWorkLogStart[]> {
    await this.#settled();
    return this.port.openStarts(group, options);
  }

  /** Why the log is not fully written, or undefined when it is. */
  get failure(): string | undefined {
    return this.#pending.size > 0 ? this.#lastError : this.#flushError;
  }

  /**
   * Writes the group's queued rows and `rows`, after the group's write in flight (if any): a
   * group's rows reach the port one batch at a time, so a failed batch is retried before any
   * later row. With nothing in flight the port is called at once (the file store then writes
   * before this returns).
   */
  #write(group: string, given: WorkLogRow[], dropOnFailure: boolean): Promise<void> {
    const rows = given.map((row) => redactDeep(row, this.secrets));
    const attempt = (): Promise<void> => {
      const queued = this.#pending.get(group) ?? [];
      const all = [...queued, ...rows];
      if (all.length === 0) return Promise.resolve();
      this.#pending.delete(group);
      return this.port.append(group, all).catch((error: unknown) => {
        this.#lastError = SwitchyardError.is(error)
          ? error.message
          : `Cannot write the work log of ${group}: ${error instanceof Error ? error.message : String(error)}`;
        const keep = dropOnFailure ? queued : all;
        if (keep.length > 0)
          this.#pending.set(group, [...keep, ...(this.#pending.get(group) ?? [])]);
        throw SwitchyardError.is(error) && error.code === 'SY_WORK_LOG'
          ? error
          : new SwitchyardError('SY_WORK_LOG', this.#lastError, { cause: error });
      });
    };
    const previous = this.#tails.get(group);
    const write = previous ? previous.then(attempt) : attempt();
    const tail = write.catch(() => undefined);
    this.#tails.set(group, tail);
    this.#inFlight.add(tail);
    void tail.then(() => {
      this.#inFlight.delete(tail);
      if (this.#tails.get(group) === tail) this.#tails.delete(group);
    });
    return write;
  }

  async #settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }
}
