import type { TaskRuntime } from '../types.js';

/** Records that `target` cannot be used before `until` (a provider's reset), for every task. */
export function noteTargetFault(
  rt: TaskRuntime,
  target: string,
  until: string,
  reason: string,
  park = false,
): void {
  rt.targetFaults ??= [];
  rt.targetFaults.push({ target, until, reason, ...(park ? { park } : {}) });
}
