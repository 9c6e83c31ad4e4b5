import type { CatalogRuntime } from '@switchyard/catalog';
import type { DispatchContext } from '../types.js';

/**
 * How long one attempt of a target may run, in ms: the target's `runtime.max_attempt_seconds`,
 * else the dispatcher's default (project config `maxAttemptSeconds`), else no limit. An
 * attempt past it is ended with its whole process tree and classified as a timeout.
 */
export function attemptTimeLimitMs(
  ctx: DispatchContext,
  runtime: Pick<CatalogRuntime, 'max_attempt_seconds'> | undefined,
): { maxAttemptMs?: number } {
  const seconds = runtime?.max_attempt_seconds;
  if (seconds !== undefined) return { maxAttemptMs: seconds * 1000 };
  return ctx.options.maxAttemptMs !== undefined ? { maxAttemptMs: ctx.options.maxAttemptMs } : {};
}
