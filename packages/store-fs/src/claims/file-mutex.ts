import { createHash, randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SwitchyardError } from '@switchyard/core/dry-run';
import { isSameProcessAlive, processIdentity } from '@switchyard/utils';

/** Who holds a file mutex. The nonce makes every acquisition's content unique. */
export interface MutexOwner {
  pid: number;
  startToken: string | undefined;
  host: string;
  nonce: string;
  acquiredAt: string;
}

/** Options of {@link acquireFileMutex}. */
export interface FileMutexOptions {
  /** Give up after this long (default 15 s) with SY_LOCK_HELD naming the holder. */
  timeoutMs?: number;
  /** Stop waiting when aborted: the wait rejects with the signal's reason. */
  signal?: AbortSignal;
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** Creates `path` with `content` atomically: no reader ever sees it empty or half written. */
function createExclusive(path: string, content: string): boolean {
  const tmp = `${path}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(tmp, content);
  try {
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * True unless the lock's record proves its holder gone: a process of this machine whose PID is
 * free, a zombie, or another process (its start differs: the PID was reused). A holder on
 * another host cannot be judged from here, so it counts as alive.
 *
 * A record that does not parse (empty or torn) counts as dead. A lock is linked into place
 * only once its record is written whole ({@link createExclusive}), so no process, live or not,
 * ever held a lock with a partial record that others could see: only a power loss (the link
 * reached the disk, the data did not; every process of that boot is gone) or a hand edit leaves
 * one, and nobody holds it.
 */
function holderAlive(content: string): boolean {
  const owner = parseOwner(content);
  if (owner === undefined) return false;
  if (owner.host !== hostname()) return true; // cannot judge another machine's process: wait
  return isSameProcessAlive({ pid: owner.pid, startToken: owner.startToken });
}

function parseOwner(content: string): MutexOwner | undefined {
  try {
    const owner = JSON.parse(content) as MutexOwner | null;
    return typeof owner?.pid === 'number' && typeof owner.host === 'string' ? owner : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the lock file at `path` if (and only if) it still has `content` whose holder is
 * dead. Only the process that creates `<path>.break-<hash(content)>` may remove it, and it
 * re-reads the lock first, so a racing breaker can never delete a fresh lock. A breaker
 * that dies inside this tiny section leaves a break file that is itself broken the same way.
 */
function breakStale(path: string, content: string, mine: string): void {
  const breakPath = `${path}.break-${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;
  if (!createExclusive(breakPath, mine)) {
    const other = read(breakPath);
    if (other !== undefined && !holderAlive(other)) breakStale(breakPath, other, mine);
    return;
  }
  try {
    if (read(path) === content) unlinkSync(path);
  } finally {
    unlinkSync(breakPath);
  }
}

/**
 * Takes an exclusive, cross-process mutex backed by the file `lockPath`. A lock left by a
 * dead process (PID + start token) is broken safely. Returns the release function.
 */
export async function acquireFileMutex(
  lockPath: string,
  options: FileMutexOptions = {},
): Promise<() => void> {
  const identity = processIdentity(process.pid);
  const owner: MutexOwner = {
    pid: identity.pid,
    startToken: identity.startToken,
    host: hostname(),
    nonce: randomUUID(),
    acquiredAt: new Date().toISOString(),
  };
  const mine = JSON.stringify(owner);
  mkdirSync(dirname(lockPath), { recursive: true, mode: 0o700 });
  const deadline = performance.now() + (options.timeoutMs ?? 15_000);
  for (let attempt = 0; ; attempt++) {
    options.signal?.throwIfAborted();
    if (createExclusive(lockPath, mine)) {
      return () => {
        if (read(lockPath) === mine) unlinkSync(lockPath);
      };
    }
    const held = read(lockPath);
    if (held !== undefined && !holderAlive(held)) {
      breakStale(lockPath, held, mine);
      await sleep(1);
      continue;
    }
    if (performance.now() > deadline) throw heldError(lockPath, held);
    await sleep(Math.min(1 + attempt, 20) * (0.5 + Math.random()), undefined, {
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}

/** The timeout's error; a holder on another host is never taken over, so it says how to break it. */
function heldError(lockPath: string, held: string | undefined): SwitchyardError {
  const owner = held === undefined ? undefined : parseOwner(held);
  const foreign = owner !== undefined && owner.host !== hostname() ? owner.host : undefined;
  return new SwitchyardError(
    'SY_LOCK_HELD',
    `lock ${lockPath} is held by ${held ?? 'another process'}`,
    {
      file: lockPath,
      hint:
        foreign === undefined
          ? 'another switchyard process is using the claim store; retry when it finishes'
          : `it was taken on another host (${foreign}), so this machine cannot tell whether its holder still runs and never takes it over; make sure no switchyard process on ${foreign} uses it, then break the lock: rm ${lockPath}`,
    },
  );
}
