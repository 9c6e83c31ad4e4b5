import type { RunEvent } from '@switchyard/core';
import type { LockHolder } from '@switchyard/store-fs';
import type { DispatcherStatus } from './status-types.js';

const DEFAULT_MAX_PARALLEL = 3;

/** `--max-parallel` of the last run (the limit the next run most likely uses). */
export function maxParallelOf(events: readonly RunEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'run.started') return e.maxParallel;
  }
  return DEFAULT_MAX_PARALLEL;
}

/**
 * Whether a dispatcher works on the workspace: `running` while the lock holder lives;
 * otherwise the last `run.started` without its `run.finished` (or a lock left by a dead
 * holder) means the last run `crashed`.
 */
export function dispatcherStatus(input: {
  events: readonly RunEvent[];
  lock?: { holder: LockHolder; alive: boolean } | undefined;
}): DispatcherStatus {
  let started: Extract<RunEvent, { type: 'run.started' }> | undefined;
  let finished: Extract<RunEvent, { type: 'run.finished' }> | undefined;
  for (const e of input.events) {
    if (e.type === 'run.started') {
      started = e;
      finished = undefined;
    } else if (e.type === 'run.finished' && started && e.runId === started.runId) finished = e;
  }
  const lastRun = started
    ? {
        runId: started.runId,
        startedAt: started.at,
        ...(finished ? { finishedAt: finished.at, exitCode: finished.exitCode } : {}),
      }
    : undefined;
  if (input.lock?.alive) {
    const { holder } = input.lock;
    return {
      state: 'running',
      pid: holder.pid,
      host: holder.host,
      since: holder.since,
      ...(lastRun ? { lastRun } : {}),
    };
  }
  if (!started)
    return {
      state: input.lock ? 'crashed' : 'never-run',
      ...(input.lock ? { pid: input.lock.holder.pid } : {}),
    };
  const crashed = !finished || input.lock !== undefined;
  return {
    state: crashed ? 'crashed' : 'stopped',
    pid: started.pid,
    ...(lastRun ? { lastRun } : {}),
  };
}
