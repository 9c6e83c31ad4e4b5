import { acquireFileMutex } from './claims/file-mutex.js';

/** Runs critical sections one at a time. */
export type Locked = <T>(fn: () => T | Promise<T>) => Promise<T>;

/**
 * Critical sections on one lock file. This process's sections take turns in a queue first;
 * then, unless the store is exclusive (its opener holds the workspace lock, so no other
 * process writes), each takes the cross-process file mutex, which a dead holder's crash
 * never leaves stuck (see `acquireFileMutex`).
 */
export function lockedSection(lockPath: string, exclusive: boolean): Locked {
  let turn: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => T | Promise<T>): Promise<T> => {
    const run = async () => {
      const release = exclusive ? undefined : await acquireFileMutex(lockPath);
      try {
        return await fn();
      } finally {
        release?.();
      }
    };
    const result = turn.then(run, run);
    turn = result.catch(() => undefined);
    return result;
  };
}
