import { SwitchyardError } from '@switchyard/core';
import type { DispatchContext } from '../types.js';
import type { SharedRun } from './shared-run.js';

/**
 * One backlog operation of a scheduling pass. A failure for a passing reason
 * (`SY_STORE_TRANSIENT`: a deadlock or serialization failure, a dropped connection) is reported
 * as a `control.failure` event and returns `{ ok: false }`: the run keeps its work in memory and
 * the next pass tries again (the run's own tasks keep their leases meanwhile). Ending the run
 * there would let its other tasks' leases expire and their attempts be paid again elsewhere.
 * Any other error is thrown: only a permanent one ends the run.
 */
export async function tryBacklog<T>(
  ctx: DispatchContext,
  shared: SharedRun,
  what: string,
  operation: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false }> {
  try {
    return { ok: true, value: await operation() };
  } catch (error) {
    if (!SwitchyardError.is(error) || error.code !== 'SY_STORE_TRANSIENT') throw error;
    shared.retryPass = true;
    ctx.bus.emit({
      type: 'control.failure',
      code: error.code,
      message: `shared backlog: ${what} failed (${error.message}); this run keeps its work and tries again on its next pass`,
    });
    return { ok: false };
  }
}
