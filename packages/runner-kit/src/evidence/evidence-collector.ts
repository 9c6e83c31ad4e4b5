import type { TerminalEvent, TerminalEvidence } from '@switchyard/core';
import { buildTerminalEvidence } from './build-evidence.js';
import { parseJsonObjectLine } from './json-line.js';
import { type FramedLine, LineFramer } from './line-framer.js';
import { TailBuffer } from './tail-buffer.js';
import { detectTerminalEvent } from './terminal-event.js';

export type StreamName = 'stdout' | 'stderr';

const TAIL_HEAD_BYTES = 16 * 1024;

/** A framed, decoded output line as the collector hands it to `onLine`. */
export interface CollectedLine {
  stream: StreamName;
  /** 1-based line number within its stream. */
  lineNumber: number;
  text: string;
  truncated: boolean;
  /** The parsed JSON object, for JSONL output when the line is one. */
  event?: Record<string, unknown>;
  /** True when `isRetryLine` said the line only announces an internal retry. */
  retry: boolean;
}

export interface EvidenceCollectorOptions {
  agent: string;
  outputFormat: 'text' | 'jsonl';
  /** Lines kept per stream tail (default 200). */
  tailLines?: number;
  /** Bytes kept per line; longer lines are cut and counted (default 1 MiB). */
  maxLineBytes?: number;
  /** Terminal events kept, newest last (default 50). */
  maxTerminalEvents?: number;
  /** Recognises lines that only announce an internal retry (from the agent's classifier). */
  isRetryLine?: (line: string) => boolean;
  /** Sees every line once, e.g. to write the normalized transcript from the same parse. */
  onLine?: (line: CollectedLine) => void;
  /** The agent CLI's version (from its preflight `--version`), recorded in the evidence. */
  agentVersion?: string;
}

/**
 * Streams an agent's stdout and stderr through line framing, tails, JSONL parsing and
 * terminal-event detection with flat memory; `finish()` yields the {@link TerminalEvidence}.
 */
export class EvidenceCollector {
  readonly #opts: EvidenceCollectorOptions;
  readonly #framers: Record<StreamName, LineFramer>;
  readonly #tails: Record<StreamName, TailBuffer>;
  readonly #retries = new TailBuffer(20, 1000);
  #events: TerminalEvent[] = [];
  #lastEvent: Record<string, unknown> | undefined;

  constructor(options: EvidenceCollectorOptions) {
    this.#opts = options;
    const framing = { maxLineBytes: options.maxLineBytes ?? 1024 * 1024 };
    this.#framers = {
      stdout: new LineFramer((l) => this.#line('stdout', l), framing),
      stderr: new LineFramer((l) => this.#line('stderr', l), framing),
    };
    this.#tails = {
      stdout: new TailBuffer(options.tailLines ?? 200),
      stderr: new TailBuffer(options.tailLines ?? 200),
    };
  }

  write(stream: StreamName, chunk: Buffer | string): void {
    this.#framers[stream].push(chunk);
  }

  /** Flushes unterminated last lines of both streams. */
  end(): void {
    this.#framers.stdout.end();
    this.#framers.stderr.end();
  }

  /** Ends the streams and assembles the evidence. */
  finish(exit: {
    exitCode: number | null;
    signal?: string | null;
    endedBy?: TerminalEvidence['endedBy'];
  }): TerminalEvidence {
    this.end();
    return buildTerminalEvidence({
      agent: this.#opts.agent,
      outputFormat: this.#opts.outputFormat,
      exitCode: exit.exitCode,
      signal: exit.signal ?? null,
      endedBy: exit.endedBy,
      stdoutTail: this.#tails.stdout.toArray(),
      stderrTail: this.#tails.stderr.toArray(),
      terminalEvents: this.#events,
      lastEvent: this.#lastEvent,
      retryLines: this.#retries.toArray(),
      ...(this.#opts.agentVersion === undefined ? {} : { agentVersion: this.#opts.agentVersion }),
    });
  }

  #line(stream: StreamName, framed: FramedLine): void {
    const text = framed.bytes.toString(); // utf8; the no-argument call is Node's fast path
    // A tail entry of a long line is decoded on its own: a slice of `text` would keep the
    // whole (up to maxLineBytes) string alive for as long as the line stays in the tail.
    const head =
      framed.bytes.length > TAIL_HEAD_BYTES
        ? framed.bytes.toString('utf8', 0, TAIL_HEAD_BYTES)
        : text;
    this.#tails[stream].push(head);
    let event: Record<string, unknown> | undefined;
    if (this.#opts.outputFormat === 'jsonl' && !framed.truncated) {
      event = parseJsonObjectLine(text);
      if (event !== undefined) {
        if (stream === 'stdout') this.#lastEvent = event;
        const terminal = detectTerminalEvent(event, framed.lineNumber, text);
        if (terminal !== undefined) this.#keepEvent(terminal);
      }
    }
    const retry = this.#opts.isRetryLine?.(text) === true;
    if (retry) this.#retries.push(head);
    this.#opts.onLine?.({
      stream,
      lineNumber: framed.lineNumber,
      text,
      truncated: framed.truncated,
      event,
      retry,
    });
  }

  #keepEvent(event: TerminalEvent): void {
    this.#events.push(event);
    const max = this.#opts.maxTerminalEvents ?? 50;
    if (this.#events.length > max) this.#events = this.#events.slice(-max);
  }
}

/** Evidence from complete outputs (fixtures, `switchyard classify` on saved files). */
export function collectEvidence(
  input: Omit<EvidenceCollectorOptions, 'onLine'> & {
    stdout: Buffer | string;
    stderr: Buffer | string;
    exitCode: number | null;
    signal?: string | null;
    endedBy?: TerminalEvidence['endedBy'];
  },
): TerminalEvidence {
  const collector = new EvidenceCollector(input);
  collector.write('stdout', input.stdout);
  collector.write('stderr', input.stderr);
  return collector.finish(input);
}
