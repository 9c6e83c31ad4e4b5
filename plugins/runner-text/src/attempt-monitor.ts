import { closeSync, constants, openSync, writeSync } from 'node:fs';
import type {
  EndedBy,
  OutputFormat,
  ProgressCounters,
  SecretValue,
  TerminalEvidence,
  TranscriptPlugin,
} from '@switchyard/core';
import { EvidenceCollector, StreamMasker, type StreamName } from '@switchyard/runner-kit';
import { isSameProcessAlive } from '@switchyard/utils';
import { EvidenceFiles } from './evidence-files.js';
import { FileTail } from './file-tail.js';
import type { AttemptHooks } from './hooks.js';

/** Bytes read per poll slice before yielding to the event loop. */
const SLICE = 2 * 1024 * 1024;

// Every monitor of this process with the same poll interval shares one timer: a dispatcher
// watching many agents wakes once per interval, not once per agent.
const pollers = new Map<number, { timer: NodeJS.Timeout; ticks: Set<() => void> }>();

/** Calls `tick` every `intervalMs` (with the others of that interval); returns the leave. */
function joinPolling(intervalMs: number, tick: () => void): () => void {
  let poller = pollers.get(intervalMs);
  if (!poller) {
    const ticks = new Set<() => void>();
    poller = {
      ticks,
      timer: setInterval(() => {
        for (const t of ticks) t();
      }, intervalMs),
    };
    pollers.set(intervalMs, poller);
  }
  const own = poller;
  own.ticks.add(tick);
  return () => {
    own.ticks.delete(tick);
    if (own.ticks.size === 0 && pollers.get(intervalMs) === own) {
      clearInterval(own.timer);
      pollers.delete(intervalMs);
    }
  };
}

export interface MonitorOptions {
  dir: string;
  paths: { stdoutRaw: string; stderrRaw: string };
  agent: string;
  outputFormat: OutputFormat;
  pid: number;
  startToken: string | undefined;
  stallTimeoutMs: number;
  retryLoopTimeoutMs: number;
  /** The attempt ends with `time-limit` once it has run this long (monotonic clock). */
  maxAttemptMs?: number;
  /** When the attempt started, on `performance.now()`'s clock (earlier than the monitor for a
   * re-attached attempt). Every watchdog interval is measured on that clock: a wall-clock step
   * neither ends a healthy attempt nor lets a stuck one run on. */
  startedAtMonotonicMs: number;
  pollIntervalMs: number;
  heartbeatIntervalMs: number;
  isRetryLine?: (line: string) => boolean;
  transcript?: TranscriptPlugin;
  hooks: AttemptHooks;
  offsets?: { stdout: number; stderr: number };
  /** Masked as read: in the raw files in place (same length) and in everything written. */
  secrets?: readonly SecretValue[];
  /** Called (once) when the watchdog decides to end the attempt. */
  onWatchdog: (reason: Exclude<EndedBy, 'cancel'>) => void;
  /** Poll liveness of a non-child process and call this when it is gone. */
  onVanished?: () => void;
}

/**
 * Tails an attempt's stdout.raw/stderr.raw: frames chunks into stream.log, feeds the evidence
 * collector (line framing, tails, terminal events, retry lines), writes the normalized
 * transcript, heartbeats, and runs the stall / retry-loop watchdog. One shared timer, no busy
 * loop.
 */
export class AttemptMonitor {
  readonly #o: MonitorOptions;
  readonly #files: EvidenceFiles;
  readonly #tails: Record<StreamName, FileTail>;
  readonly #collector: EvidenceCollector;
  /** Per stream, when there are secrets: the masker and an fd to mask the raw file in place. */
  readonly #maskers: Partial<Record<StreamName, { masker: StreamMasker; raw: number }>> = {};
  readonly counters: ProgressCounters;
  #retrySince: number | undefined;
  /** Monotonic ms of the last real progress (`counters.lastProgressAt` is its wall time). */
  #progressAt = performance.now();
  #priming = false;
  #leavePolling: (() => void) | undefined;
  #lastBeat = 0;
  #lastSessionBytes: number | undefined;
  #stopped = false;

  constructor(options: MonitorOptions) {
    this.#o = options;
    this.#files = new EvidenceFiles(options.dir);
    this.#tails = {
      stdout: new FileTail(options.paths.stdoutRaw, options.offsets?.stdout ?? 0),
      stderr: new FileTail(options.paths.stderrRaw, options.offsets?.stderr ?? 0),
    };
    if (options.secrets && options.secrets.length > 0) {
      for (const stream of ['stdout', 'stderr'] as const) {
        const file = stream === 'stdout' ? options.paths.stdoutRaw : options.paths.stderrRaw;
        this.#maskers[stream] = {
          masker: new StreamMasker(options.secrets, this.#tails[stream].offset),
          raw: openSync(file, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK),
        };
      }
    }
    this.counters = {
      stdoutBytes: options.offsets?.stdout ?? 0,
      stderrBytes: options.offsets?.stderr ?? 0,
      lines: 0,
      retryLines: 0,
      lastProgressAt: Date.now(),
    };
    this.#collector = new EvidenceCollector({
      agent: options.agent,
      outputFormat: options.outputFormat,
      ...(options.isRetryLine ? { isRetryLine: options.isRetryLine } : {}),
      onLine: (line) => {
        if (line.event && line.stream === 'stdout') this.#o.hooks.onEvent?.(line.event);
        else if (!line.event) this.#o.hooks.onTextLine?.(line.text, line.stream);
        if (this.#priming) return;
        this.counters.lines++;
        if (line.retry) {
          this.counters.retryLines++;
          this.#retrySince ??= performance.now();
        } else {
          this.#progress();
          this.#retrySince = undefined;
        }
        const text = this.#normalize(line.stream, line.text, line.event);
        if (text !== undefined) this.#files.normalized(text);
      },
    });
  }

  /** Rebuilds tails/terminal events from output before the resume offsets (reattach), without
   * writing the transcript again. Reads at most `window` bytes per stream. */
  prime(window = 1024 * 1024): void {
    this.#priming = true;
    for (const stream of ['stdout', 'stderr'] as const) {
      const end = this.#tails[stream].offset;
      const start = Math.max(0, end - window);
      let data = this.#tails[stream].readRange(start, end);
      if (start > 0) data = data.subarray(data.indexOf(0x0a) + 1);
      this.#collector.write(stream, data);
    }
    this.#collector.end();
    this.#priming = false;
  }

  start(): void {
    this.#heartbeat(true);
    this.#leavePolling = joinPolling(this.#o.pollIntervalMs, () => this.tick());
  }

  /** One poll: read new output, check the watchdog, heartbeat when due. */
  tick(): void {
    if (this.#stopped) return;
    // a fast writer: keep reading soon, but yield to the event loop between slices
    if (this.#drain(SLICE) >= SLICE) setImmediate(() => this.tick());
    const now = performance.now();
    const session = this.#o.hooks.sessionBytes?.();
    if (session !== undefined) {
      if (this.#lastSessionBytes !== undefined && session > this.#lastSessionBytes)
        this.#progress();
      this.#lastSessionBytes = session;
      this.counters.sessionBytes = session;
    }
    if (
      this.#o.maxAttemptMs !== undefined &&
      now - this.#o.startedAtMonotonicMs >= this.#o.maxAttemptMs
    ) {
      // Progress does not matter here: an agent printing forever is still stopped.
      this.#o.onWatchdog('time-limit');
    } else if (
      this.#retrySince !== undefined &&
      now - this.#retrySince >= this.#o.retryLoopTimeoutMs
    ) {
      this.#o.onWatchdog('retry-loop');
    } else if (now - this.#progressAt >= this.#o.stallTimeoutMs) {
      this.#o.onWatchdog('stall');
    }
    if (
      this.#o.onVanished &&
      !isSameProcessAlive({ pid: this.#o.pid, startToken: this.#o.startToken })
    ) {
      this.#o.onVanished();
    }
    if (now - this.#lastBeat >= this.#o.heartbeatIntervalMs) this.#heartbeat(true);
  }

  #drain(maxBytes: number): number {
    let total = 0;
    for (const stream of ['stdout', 'stderr'] as const) {
      const masking = this.#maskers[stream];
      total += this.#tails[stream].read((chunk, offset) => {
        if (!masking) return this.#take(stream, offset, chunk);
        // a secret is masked in the raw file before any of it is passed on; bytes that may
        // start one are held back until the next chunk shows (see StreamMasker)
        const safe = masking.masker.push(chunk);
        this.#maskRaw(masking.raw, safe.masks);
        if (safe.data.length > 0) this.#take(stream, safe.offset, safe.data);
        else this.#progress(); // held back, but output all the same
      }, maxBytes);
    }
    return total;
  }

  /** Everything held back by the maskers (the agent is gone: nothing more comes). */
  #drainMaskers(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      const masking = this.#maskers[stream];
      if (!masking) continue;
      const rest = masking.masker.end();
      if (rest.data.length > 0) this.#take(stream, rest.offset, rest.data);
      closeSync(masking.raw);
    }
  }

  #maskRaw(fd: number, masks: readonly { offset: number; mask: Buffer }[]): void {
    for (const { offset, mask } of masks) writeSync(fd, mask, 0, mask.length, offset);
  }

  /** One chunk of output (masked when there are secrets): framed, collected, counted. */
  #take(stream: StreamName, offset: number, chunk: Buffer): void {
    this.#files.frame(stream, offset, chunk);
    const linesBefore = this.counters.lines;
    this.#collector.write(stream, chunk);
    // flush per chunk: few lines stay referenced long enough to be promoted (flat RSS)
    this.#files.flush();
    if (stream === 'stdout') this.counters.stdoutBytes += chunk.length;
    else this.counters.stderrBytes += chunk.length;
    // bytes of a line still being written are progress too (a long line streaming in)
    if (this.counters.lines === linesBefore) this.#progress();
  }

  #progress(): void {
    this.#progressAt = performance.now();
    this.counters.lastProgressAt = Date.now();
  }

  #normalize(
    stream: StreamName,
    text: string,
    event: Record<string, unknown> | undefined,
  ): string | undefined {
    const t = this.#o.transcript;
    if (event && t) return t.formatEvent(event);
    const formatted = t?.formatLine?.(text, stream);
    if (formatted !== undefined) return formatted;
    return stream === 'stderr' ? `[stderr] ${text}` : text;
  }

  #heartbeat(alive: boolean): void {
    this.#lastBeat = performance.now();
    this.#files.heartbeat({
      at: new Date().toISOString(),
      pid: this.#o.pid,
      alive,
      stdoutBytes: this.counters.stdoutBytes,
      stderrBytes: this.counters.stderrBytes,
      lines: this.counters.lines,
      retryLines: this.counters.retryLines,
      ...(this.counters.sessionBytes !== undefined
        ? { sessionBytes: this.counters.sessionBytes }
        : {}),
      idleMs: Math.max(0, Math.round(this.#lastBeat - this.#progressAt)),
    });
  }

  /** Stops polling, reads everything left, writes the last heartbeat, fsyncs, and returns the
   * evidence for the classifiers. */
  async finish(exit: {
    exitCode: number | null;
    signal: string | null;
    endedBy?: EndedBy;
  }): Promise<TerminalEvidence> {
    const { evidence, durable } = this.end(exit);
    await durable;
    return evidence;
  }

  /** {@link finish} without waiting: the evidence at once, and the fsyncs and closes of its
   * files as `durable`, for a caller with other work to do meanwhile. */
  end(exit: { exitCode: number | null; signal: string | null; endedBy?: EndedBy }): {
    evidence: TerminalEvidence;
    durable: Promise<void>;
  } {
    this.#stopped = true;
    this.#leavePolling?.();
    this.#drain(Number.POSITIVE_INFINITY);
    this.#drainMaskers();
    const evidence = this.#collector.finish(exit);
    this.#heartbeat(false);
    this.#tails.stdout.close();
    this.#tails.stderr.close();
    return { evidence, durable: this.#files.close() };
  }
}
