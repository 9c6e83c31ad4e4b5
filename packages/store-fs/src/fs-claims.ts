import type { ClaimPort, FencedWrite } from '@switchyard/core';
import { type ClaimStore, openClaimStore } from './claims/claim-store.js';
import type { FsLeases } from './fs-leases.js';
import type { Locked } from './locked.js';

/**
 * Claims in `claims/claims.json`, as before: every change fsynced, under the claims' own file
 * mutex unless the store is exclusive (its opener holds the workspace lock, which every other
 * claim writer takes first). A fenced change also holds the store lock (always taken first),
 * so no lease can move between its fence check and its write.
 */
export function fsClaims(
  stateDir: string,
  locked: Locked,
  leases: FsLeases,
  exclusive = false,
): ClaimPort {
  let opened: Promise<ClaimStore> | undefined;
  const claims = () => {
    opened ??= openClaimStore(stateDir, { exclusive });
    return opened;
  };
  const fenced = async <T>(options: FencedWrite | undefined, fn: (c: ClaimStore) => Promise<T>) => {
    const store = await claims();
    if (!options?.fence) return fn(store);
    return locked(() => {
      leases.check(options.fence);
      return fn(store);
    });
  };
  return {
    tryClaim: (taskId, paths, options) => fenced(options, (c) => c.tryClaim(taskId, paths)),
    release: (taskId, options) => fenced(options, (c) => c.release(taskId)),
    holderOf: async (path) => (await claims()).holderOf(path),
    list: async () => (await claims()).list(),
    snapshot: async () => (await claims()).snapshot(),
  };
}
