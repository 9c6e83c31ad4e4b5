import {
  closeSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isSameProcessAlive, readStartToken, SwitchyardError } from '@switchyard/core';
import { ensureOwnedDir, openOwnedFile } from '@switchyard/utils';
import { assertSafeOwnedPaths } from './owned-tree.js';

/** Who holds a workspace lock; the content of the lock file. */
export interface LockHolder {
  pid: number;
  startToken: string | undefined;
  host: string;
  /** ISO-8601 instant the lock was taken. */
  since: string;
  /** Real path of the workspace the lock is for. */
  workspace: string;
}

/** A held lock; `release()` removes it only while it is still ours. */
export interface WorkspaceLock {
  readonly file: string;
  readonly holder: LockHolder;
  release(): void;
}

/** Options of {@link acquireWorkspaceLock}. */
export interface AcquireLockOptions {
  /** Workspace directory (any path; the lock is on its real path). */
  workspace: string;
  /** Directory holding the lock file; default `<realpath>/agent-task/.switchyard`. */
  stateDir?: string;
  /** Identity to record, for tests; default this process. */
  pid?: number;
}

export const LOCK_FILE_NAME = 'dispatcher.lock';

/**
 * Takes the physical-workspace dispatcher lock, or throws `SY_LOCK_HELD` naming the live
 * holder. The lock file is created with `link()`, which fails atomically when it exists; a
 * lock whose holder is dead (PID gone or start token changed: PID reuse) is stale and taken
 * over under a short takeover mutex so two starters cannot both win.
 */
export function acquireWorkspaceLock(options: AcquireLockOptions): WorkspaceLock {
  const workspace = realpathSync(options.workspace);
  const stateDir = options.stateDir ?? join(workspace, 'agent-task', '.switchyard');
  if (options.stateDir === undefined) {
    // The first write of a run: refuse a symlinked agent-task/, .switchyard/, archive, group
    // or task folder (and planted WORK_LOG.md/complete.log links) before anything is written.
    assertSafeOwnedPaths(workspace);
    ensureOwnedDir(workspace, stateDir);
  } else mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = join(stateDir, LOCK_FILE_NAME);
  const pid = options.pid ?? process.pid;
  const holder: LockHolder = {
    pid,
    startToken: readStartToken(pid),
    host: hostname(),
    since: new Date().toISOString(),
    workspace,
  };
  for (let round = 0; round < 5; round++) {
    if (tryCreate(file, holder)) return makeLock(file, holder);
    const current = readHolder(file);
    if (current && !isStale(current)) throw heldError(current, file);
    takeOverStale(file, current);
    // Another starter may be mid-takeover: give it a moment before looking again.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 * (round + 1));
  }
  const current = readHolder(file);
  throw heldError(current, file);
}

/** Reads the holder recorded in a lock file, or undefined when there is none (or it is torn). */
export function readLockHolder(stateDir: string): LockHolder | undefined {
  return readHolder(join(stateDir, LOCK_FILE_NAME));
}

function tryCreate(file: string, holder: LockHolder): boolean {
  const temp = `${file}.${holder.pid}.${process.hrtime.bigint()}`;
  const fd = openOwnedFile(temp, 'create');
  try {
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}

function isStale(holder: LockHolder): boolean {
  // A lock from another host cannot be checked from here: fail closed, treat it as held.
  if (holder.host !== hostname()) return false;
  return !isSameProcessAlive({ pid: holder.pid, startToken: holder.startToken });
}

/** Removes a stale lock (or a torn one) under a mkdir mutex; a mutex older than 10 s is stale. */
function takeOverStale(file: string, seen: LockHolder | undefined): void {
  const mutex = `${file}.takeover`;
  try {
    mkdirSync(mutex, 0o700);
  } catch {
    try {
      if (Date.now() - statSync(mutex).mtimeMs > 10_000) rmSync(mutex, { recursive: true });
    } catch {}
    return;
  }
  try {
    const again = readHolder(file);
    const unchanged = JSON.stringify(again) === JSON.stringify(seen);
    if (unchanged && (again === undefined || isStale(again))) {
      // Renamed first (atomic against other starters), then removed: no `.stale` file stays.
      try {
        renameSync(file, `${file}.stale`);
        unlinkSync(`${file}.stale`);
      } catch {}
    }
  } finally {
    rmSync(mutex, { recursive: true, force: true });
  }
}

function heldError(holder: LockHolder | undefined, file: string): SwitchyardError {
  const who = holder
    ? `pid ${holder.pid} on ${holder.host}, since ${holder.since}`
    : 'an unreadable holder';
  const foreign = holder !== undefined && holder.host !== hostname();
  return new SwitchyardError(
    'SY_LOCK_HELD',
    `Another dispatcher holds the workspace lock (${who}) for ${holder?.workspace ?? 'this workspace'}.${foreign ? ` It was taken on another host (${holder.host}), so this machine cannot tell whether it still runs; it is never taken over automatically.` : ''}`,
    {
      file,
      hint: foreign
        ? `Make sure no switchyard runs on ${holder.host} for this workspace, then break the lock: rm ${file}`
        : 'Wait for that dispatcher to finish, or stop it; a lock whose process is gone is taken over automatically.',
    },
  );
}

function makeLock(file: string, holder: LockHolder): WorkspaceLock {
  let released = false;
  return {
    file,
    holder,
    release() {
      if (released) return;
      released = true;
      const current = readHolder(file);
      if (current && current.pid === holder.pid && current.since === holder.since) {
        try {
          unlinkSync(file);
        } catch {}
      }
    },
  };
}
