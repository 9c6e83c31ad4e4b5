import { fstatSync, readFileSync, writeSync } from 'node:fs';

/** What the prompt's standard input is: a file, a pipe, or nothing to read. */
export interface FakeAgentStdin {
  kind: 'file' | 'pipe' | 'other';
  read(): string;
}

/**
 * Where a fake-agent run writes and what it runs in. A spawned `switchyard-fake-agent` uses its
 * own process ({@link processIo}); an in-process runner gives files of its attempt, its cwd and
 * an abort signal, so both run the same scenario logic.
 */
export interface FakeAgentIo {
  /** Writes to the agent's stdout (1) or stderr (2), synchronously and in order. */
  write(fd: 1 | 2, data: string | Buffer): void;
  /** Relative paths resolve against it when SWITCHYARD_WORKSPACE is unset. */
  cwd: string;
  /** Recorded in the scenario's state file beside each run. */
  pid: number;
  stdin: FakeAgentStdin;
  /** Ends the run by a signal (the `kill` step): a process signals itself; an in-process run
   * throws {@link FakeAgentKilled}. */
  kill(signal: string): Promise<never>;
  /** Aborted when the agent is stopped (in-process): every waiting step ends at once. */
  signal?: AbortSignal;
}

/** Thrown by a step that ends the run with an exit code. */
export class FakeAgentExit {
  constructor(readonly code: number) {}
}

/** Thrown when an in-process run ends by a signal (its `kill` step, or a stop). */
export class FakeAgentKilled {
  constructor(readonly signal: string) {}
}

function writeAll(fd: number, data: string | Buffer): void {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

function processStdin(): FakeAgentStdin {
  let kind: FakeAgentStdin['kind'] = 'other';
  try {
    const stat = fstatSync(0);
    kind = stat.isFile() ? 'file' : stat.isFIFO() ? 'pipe' : 'other';
  } catch {
    // no standard input at all
  }
  return { kind, read: () => readFileSync(0, 'utf8') };
}

/** The fake agent as a process: its own stdout/stderr (synchronous writes keep the order
 * across both and lose nothing at exit), cwd, stdin and signals. */
export function processIo(): FakeAgentIo {
  return {
    write: writeAll,
    cwd: process.cwd(),
    pid: process.pid,
    stdin: processStdin(),
    kill: async (signal) => {
      process.kill(process.pid, signal as NodeJS.Signals);
      await new Promise((r) => setTimeout(r, 60_000));
      throw new FakeAgentKilled(signal);
    },
  };
}

/** Waits `ms`, or ends the run as stopped when the io's signal aborts first. */
export function pause(io: FakeAgentIo, ms: number): Promise<void> {
  const { signal } = io;
  if (signal?.aborted) return Promise.reject(new FakeAgentKilled('SIGTERM'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(new FakeAgentKilled('SIGTERM'));
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
