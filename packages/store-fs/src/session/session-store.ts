import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '@switchyard/core';
import {
  MONITOR_FILE,
  SESSIONS_DIR,
  type SessionMonitor,
  type SessionPlan,
  type SessionStatus,
  SwitchyardError,
  sessionMonitorSchema,
  sessionPlanSchema,
  sessionStatusSchema,
} from '@switchyard/core';
import {
  ensureOwnedDir,
  isSameProcessAlive,
  readJsonFile,
  readStartToken,
  replaceFile,
} from '@switchyard/utils';

const ID = /^s-\d{8}T\d{6}Z-[0-9a-f]{4}$/;

/** A new session id: `s-<UTC time>-<random>`, sortable by start time. */
export function newSessionId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `s-${stamp}-${randomBytes(2).toString('hex')}`;
}

/** A session as read back, with its state judged against the live process table. */
export interface SessionView {
  plan: SessionPlan;
  status: SessionStatus;
  /** `crashed`: recorded as running, but its process is gone. */
  state: SessionStatus['state'] | 'crashed';
  dir: string;
}

/** Reads and writes the sessions of one workspace's state dir. */
export class SessionStore {
  readonly root: string;
  constructor(readonly stateDir: string) {
    this.root = join(stateDir, SESSIONS_DIR);
  }

  dirOf(id: string): string {
    if (!ID.test(id)) {
      throw new SwitchyardError('SY_USAGE', `"${id}" is not a session id.`, {
        hint: 'Session ids look like s-20261201T020000Z-1a2b; `switchyard status --sessions` lists them.',
      });
    }
    return join(this.root, id);
  }

  /** Creates the session folder and its plan, and marks it running in this process. */
  async create(plan: SessionPlan, now = new Date()): Promise<void> {
    ensureOwnedDir(this.stateDir, this.dirOf(plan.id));
    await replaceFile(
      join(this.dirOf(plan.id), 'plan.json'),
      `${JSON.stringify(plan, null, 2)}\n`,
      {
        durable: true,
      },
    );
    await this.markRunning(plan.id, now);
  }

  /** Marks the session running in this process (a new run or a resume). */
  async markRunning(id: string, now = new Date()): Promise<void> {
    const previous = this.readStatus(id);
    await this.writeStatus({
      schema_version: 1,
      id,
      state: 'running',
      pid: process.pid,
      ...(readStartToken(process.pid) ? { startToken: readStartToken(process.pid) } : {}),
      startedAt: previous?.startedAt ?? now.toISOString(),
      updatedAt: now.toISOString(),
      runs: previous?.runs ?? [],
    });
  }

  async writeStatus(status: SessionStatus): Promise<void> {
    await replaceFile(
      join(this.dirOf(status.id), 'status.json'),
      `${JSON.stringify(status, null, 2)}\n`,
      {
        durable: false,
      },
    );
  }

  readStatus(id: string): SessionStatus | undefined {
    return readJsonFile(join(this.dirOf(id), 'status.json'), sessionStatusSchema, SESSION_FILE);
  }

  /** Records the monitor a run of the session serves (`monitor-server.json`, mode 0600). */
  async writeMonitor(id: string, monitor: SessionMonitor): Promise<void> {
    await replaceFile(
      join(this.dirOf(id), MONITOR_FILE),
      `${JSON.stringify(sessionMonitorSchema.parse(monitor), null, 2)}\n`,
      { durable: false },
    );
  }

  /** The monitor a run of the session serves or served, if any. */
  readMonitor(id: string): SessionMonitor | undefined {
    return readJsonFile(join(this.dirOf(id), MONITOR_FILE), sessionMonitorSchema, SESSION_FILE);
  }

  // The descriptor of each session's events.jsonl this store appended to: opened on the first
  // event, not once per event (an open and a close per event were a tenth of the run's opens).
  readonly #events = new Map<string, number>();

  /** Appends a run event to the session's events.jsonl (O_APPEND, one write per line). */
  appendEvent(id: string, event: RunEvent): void {
    let fd = this.#events.get(id);
    if (fd === undefined) {
      fd = openSync(join(this.dirOf(id), 'events.jsonl'), 'a', 0o600);
      this.#events.set(id, fd);
    }
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    for (let at = 0; at < line.length; ) at += writeSync(fd, line, at);
  }

  /** Closes the events.jsonl descriptors (a later append opens its file again). */
  closeEvents(): void {
    for (const fd of this.#events.values()) closeSync(fd);
    this.#events.clear();
  }

  /** The session, or a `SY_USAGE` error naming the known ones. */
  read(id: string): SessionView {
    const dir = this.dirOf(id);
    const plan = readJsonFile(join(dir, 'plan.json'), sessionPlanSchema, SESSION_FILE);
    const status = this.readStatus(id);
    if (!plan || !status) {
      const known = this.ids().slice(-5).join(', ') || '(none)';
      throw new SwitchyardError('SY_USAGE', `No session "${id}" in this workspace.`, {
        hint: `Recent sessions: ${known}.`,
      });
    }
    const alive =
      status.state === 'running' &&
      isSameProcessAlive({ pid: status.pid, startToken: status.startToken });
    return {
      plan,
      status,
      state: status.state === 'running' && !alive ? 'crashed' : status.state,
      dir,
    };
  }

  /** Session ids, oldest first. */
  ids(): string[] {
    try {
      return readdirSync(this.root)
        .filter((name) => ID.test(name))
        .sort();
    } catch {
      return [];
    }
  }

  /** Every session, oldest first (unreadable ones skipped). */
  list(): SessionView[] {
    return this.ids().flatMap((id) => {
      try {
        return [this.read(id)];
      } catch {
        return [];
      }
    });
  }
}

const SESSION_FILE = {
  what: 'session file',
  hint: 'Session files are written atomically, so it was edited by hand; restore or delete the session folder.',
};
