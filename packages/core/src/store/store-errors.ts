import { SwitchyardError } from '../errors.js';
import type { Fence } from './fence.js';
import type { Lease } from './lease-port.js';

/** `SY_STORE_CONFLICT`: a compare-and-set lost against another write. */
export function versionConflict(what: string, expected: number, actual: number): SwitchyardError {
  return new SwitchyardError(
    'SY_STORE_CONFLICT',
    `${what} changed since it was read (expected version ${expected}, found ${actual}); nothing was written.`,
    {
      hint: 'Another writer updated it first: read it again and re-apply the change (a second dispatcher on the same task?).',
    },
  );
}

/** `SY_LEASE_LOST`: a write carried a fence that is no longer the task's lease. */
export function leaseLost(fence: Fence, current: Lease | undefined): SwitchyardError {
  const now = current
    ? `its lease is token ${current.token}, held by ${current.holder}`
    : 'it has no lease';
  return new SwitchyardError(
    'SY_LEASE_LOST',
    `${fence.task}: the write's fencing token ${fence.token} is stale (${now}); nothing was written.`,
    {
      hint: 'This dispatcher lost the task (its lease expired and another holder took it): it must stop working on the task.',
    },
  );
}

/** Whether a fence matches the task's current lease (an unfenced write always passes). */
export function fenceHolds(fence: Fence | undefined, current: Lease | undefined): boolean {
  return fence === undefined || (current !== undefined && current.token === fence.token);
}
