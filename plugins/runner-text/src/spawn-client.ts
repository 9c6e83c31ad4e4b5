import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findProcessesWithMarker, isSameProcessAlive, startTokenOf } from '@switchyard/utils';

/** How an agent ended: exit status when observed, else only that it vanished. */
export interface AgentExit {
  exitCode: number | null;
  signal: string | null;
  /** False when the helper died first and the end was seen only as the process vanishing. */
  exitObserved: boolean;
}

/** One agent launch, as the helper needs it (argv without a shell, output appended to files). */
export interface HelperSpawnRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  /** The complete environment of the agent. */
  env: Readonly<Record<string, string | undefined>>;
  stdout: string;
  stderr: string;
  /** A file to open as the agent's stdin (a prompt too long for argv); /dev/null without. */
  stdin?: string;
  /** The process marker, to find an agent whose PID was never reported. */
  marker: { name: string; value: string };
}

export interface HelperSpawned {
  pid: number;
  startToken: string | undefined;
  exit: Promise<AgentExit>;
}

/** The helper could not start the agent (the message says why, e.g. `spawn x ENOENT`). */
export class HelperSpawnError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

interface Pending {
  request: HelperSpawnRequest;
  started?: (value: HelperSpawned) => void;
  failed?: (error: Error) => void;
  exited?: (exit: AgentExit) => void;
  pid?: number;
  startToken?: string | undefined;
}

type Reply =
  | { id: number; pid: number; startTime?: string }
  | { id: number; exitCode: number | null; signal: string | null }
  | { id: number; error: string; code?: string };

const VANISH_POLL_MS = 200;
/** After this many helper deaths the runner spawns agents itself for the rest of the run. */
const MAX_HELPER_STARTS = 3;

function helperEntry(): string | undefined {
  // built: dist/spawn-helper.js next to this module; from source (tests): the .ts file, which
  // Node runs through type stripping
  for (const name of ['./spawn-helper.js', './spawn-helper.ts']) {
    const path = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * Client of the spawn helper (spawn-helper.ts): one helper process per dispatcher, started on
 * the first launch. The helper is detached (no terminal signals) and ends when this process
 * does. If it dies, agents it started keep running: their end is then detected by polling
 * PID + start token (`exitObserved: false`, as for a re-attached attempt), and an agent whose
 * PID was never reported is found by its marker and killed before the launch fails, so a
 * retry can never run beside it.
 */
export class SpawnHelperClient {
  static #shared: SpawnHelperClient | undefined | null;

  /** The process-wide client, or undefined when no helper can run here. */
  static shared(): SpawnHelperClient | undefined {
    if (SpawnHelperClient.#shared === undefined) {
      const entry = helperEntry();
      SpawnHelperClient.#shared = entry ? new SpawnHelperClient(entry) : null;
    }
    return SpawnHelperClient.#shared ?? undefined;
  }

  readonly #entry: string;
  #child: ChildProcess | undefined;
  #starts = 0;
  #nextId = 1;
  #buffered = '';
  readonly #pending = new Map<number, Pending>();

  constructor(entry: string) {
    this.#entry = entry;
  }

  /** PID of the running helper, if one runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** False once the helper failed too often; the caller then spawns directly. */
  get usable(): boolean {
    return this.#child !== undefined || this.#starts < MAX_HELPER_STARTS;
  }

  spawn(request: HelperSpawnRequest): Promise<HelperSpawned> {
    const child = this.#ensure();
    if (!child)
      return Promise.reject(new HelperSpawnError('the spawn helper did not start', 'EHELPER'));
    const id = this.#nextId++;
    const started = new Promise<HelperSpawned>((resolve, reject) => {
      this.#pending.set(id, { request, started: resolve, failed: reject });
    });
    this.#refresh();
    const { marker: _marker, ...wire } = request;
    child.stdin?.write(`${JSON.stringify({ id, ...wire })}\n`);
    return started;
  }

  #ensure(): ChildProcess | undefined {
    if (this.#child) return this.#child;
    if (this.#starts >= MAX_HELPER_STARTS) return undefined;
    this.#starts++;
    const child = spawn(process.execPath, ['--no-warnings', this.#entry], {
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    });
    if (child.pid === undefined) {
      child.on('error', () => {});
      return undefined;
    }
    this.#child = child;
    this.#buffered = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.#read(chunk));
    child.stdin?.on('error', () => {}); // EPIPE when it died: handled on exit
    child.on('error', () => {});
    // 'close', not 'exit': replies the helper wrote before it died are read first
    child.once('close', () => this.#lost(child));
    return child;
  }

  #read(chunk: string): void {
    this.#buffered += chunk;
    let newline = this.#buffered.indexOf('\n');
    while (newline >= 0) {
      const line = this.#buffered.slice(0, newline);
      this.#buffered = this.#buffered.slice(newline + 1);
      if (line) this.#handle(JSON.parse(line) as Reply);
      newline = this.#buffered.indexOf('\n');
    }
  }

  #handle(reply: Reply): void {
    const entry = this.#pending.get(reply.id);
    if (!entry) return;
    if ('error' in reply) {
      this.#pending.delete(reply.id);
      entry.failed?.(new HelperSpawnError(reply.error, reply.code));
    } else if ('pid' in reply) {
      entry.pid = reply.pid;
      entry.startToken = reply.startTime ? startTokenOf(reply.startTime) : undefined;
      const exit = new Promise<AgentExit>((resolve) => {
        entry.exited = resolve;
      });
      const started = entry.started;
      entry.started = undefined;
      entry.failed = undefined;
      started?.({ pid: reply.pid, startToken: entry.startToken, exit });
    } else {
      this.#pending.delete(reply.id);
      entry.exited?.({ exitCode: reply.exitCode, signal: reply.signal, exitObserved: true });
    }
    this.#refresh();
  }

  /** The helper died: launches in flight fail (their agent, if any, killed); running agents
   * are watched by PID + start token until they vanish. */
  #lost(child: ChildProcess): void {
    if (this.#child === child) this.#child = undefined;
    const entries = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of entries) {
      if (entry.pid === undefined) {
        const { name, value } = entry.request.marker;
        for (const pid of findProcessesWithMarker(name, value)) {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            // not a group leader, or already gone
          }
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        entry.failed?.(
          new HelperSpawnError('the spawn helper exited before it reported the PID', 'EHELPER'),
        );
      } else {
        watchUntilGone(entry.pid, entry.startToken, (exit) => entry.exited?.(exit));
      }
    }
  }

  /** The helper keeps this process alive only while a launch or an agent is outstanding. */
  #refresh(): void {
    const child = this.#child;
    if (!child) return;
    const busy = this.#pending.size > 0;
    for (const handle of [child, child.stdin, child.stdout] as const) {
      const h = handle as { ref?: () => void; unref?: () => void } | null;
      if (busy) h?.ref?.();
      else h?.unref?.();
    }
  }
}

function watchUntilGone(
  pid: number,
  startToken: string | undefined,
  done: (exit: AgentExit) => void,
): void {
  const timer = setInterval(() => {
    if (isSameProcessAlive({ pid, startToken })) return;
    clearInterval(timer);
    done({ exitCode: null, signal: null, exitObserved: false });
  }, VANISH_POLL_MS);
}
