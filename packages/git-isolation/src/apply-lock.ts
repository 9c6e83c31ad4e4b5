import { acquireFileMutex } from '@switchyard/store-fs';
import type { IsolationContext } from './isolation-context.js';

/** Default wait for another task's apply in the same repository: a day. */
export const DEFAULT_LOCK_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/**
 * Runs `work` holding the repository's apply lock (`signal` cancels the wait for it) (a file in the common git dir, shared by
 * every worktree and workspace of the repository; a dead holder's lock is broken).
 */
export async function withApplyLock<T>(
  ctx: Pick<IsolationContext, 'layout'>,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const release = await acquireFileMutex(ctx.layout.lockFile, {
    timeoutMs: timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  });
  try {
    return await work();
  } finally {
    release();
  }
}
