import PQueue from 'p-queue';

/**
 * One apply at a time per repository in this process, first come first served. The
 * repository's apply lock (a file, see ./apply-lock.ts) still keeps other processes out, but
 * tasks of one dispatcher wait here, on a promise, instead of each polling that file: with
 * hundreds of approved tasks the polling alone kept a core busy and slowed every apply.
 */
const queues = new Map<string, PQueue>();

function queueOf(lockFile: string): PQueue {
  let queue = queues.get(lockFile);
  if (!queue) {
    queue = new PQueue({ concurrency: 1 });
    queues.set(lockFile, queue);
  }
  return queue;
}

/** Thrown (as the rejection) when `stop` aborted while the work still waited its turn. */
export class StoppedWhileQueued extends Error {}

/**
 * Runs `work` when it is this repository's turn. `stop` only cancels the wait: once `work`
 * has started it runs to its end (p-queue would free the slot on abort and let the next
 * apply start beside it, so its signal is detached as soon as `work` starts).
 */
export async function inApplyQueue<T>(
  lockFile: string,
  stop: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (stop?.aborted) throw new StoppedWhileQueued();
  const waiting = new AbortController();
  const onStop = () => waiting.abort(new StoppedWhileQueued());
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    return await queueOf(lockFile).add(
      () => {
        stop?.removeEventListener('abort', onStop);
        return work();
      },
      { signal: waiting.signal },
    );
  } finally {
    stop?.removeEventListener('abort', onStop);
  }
}
