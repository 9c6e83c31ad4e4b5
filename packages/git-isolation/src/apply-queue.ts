import type PQueue from 'p-queue';

/**
 * One apply at a time per repository in this process, first come first served. The
 * repository's apply lock (a file, see ./apply-lock.ts) still keeps other processes out, but
 * tasks of one dispatcher wait here, on a promise, instead of each polling that file: with
 * hundreds of approved tasks the polling alone kept a core busy and slowed every apply.
 */
const queues = new Map<string, PQueue>();

// Loaded on the first apply: a run without worktrees never needs the queue library.
let queueClass: Promise<typeof PQueue> | undefined;
const loadQueueClass = () => {
  queueClass ??= import('p-queue').then((m) => m.default);
  return queueClass;
};

function queueOf(lockFile: string, Queue: typeof PQueue): PQueue {
  let queue = queues.get(lockFile);
  if (!queue) {
    queue = new Queue({ concurrency: 1 });
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
  // Callers resume from this await in the order they called: first come, first served.
  const Queue = await loadQueueClass();
  if (stop?.aborted) throw new StoppedWhileQueued();
  const waiting = new AbortController();
  const onStop = () => waiting.abort(new StoppedWhileQueued());
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    return await queueOf(lockFile, Queue).add(
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

/** Applies of this process moving the source's files right now (branch moved, files not yet). */
const moving = new Map<string, { count: number; settled: Array<() => void> }>();

/**
 * Runs `work` (moving the source branch and its files, or back) marked as a moment when the
 * source checkout is in between: git shows the task's files changed until they follow the
 * branch. The source guard waits for it to end before it reads the checkout.
 */
export async function whileSourceMoves<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  const state = moving.get(lockFile) ?? { count: 0, settled: [] };
  moving.set(lockFile, state);
  state.count += 1;
  try {
    return await work();
  } finally {
    state.count -= 1;
    if (state.count === 0) for (const resolve of state.settled.splice(0)) resolve();
  }
}

/** Resolves once no apply of this process is moving the source (at once when none is). */
export function sourceSettled(lockFile: string): Promise<void> {
  const state = moving.get(lockFile);
  if (!state || state.count === 0) return Promise.resolve();
  return new Promise((resolve) => state.settled.push(resolve));
}
