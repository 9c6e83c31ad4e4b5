import { type ChangeStore, openChangeStore } from '@switchyard/store-fs';
import type { DispatchContext } from '../types.js';

const stores = new WeakMap<DispatchContext, ChangeStore>();

/**
 * The run's change store: one per run, so a round it wrote is read back from memory when its
 * attempt ends. It keeps the rounds of as many writing attempts as may run at once (its own
 * default when their number is unlimited), and is dropped with the run.
 */
export function changeStoreOf(ctx: DispatchContext): ChangeStore {
  let store = stores.get(ctx);
  if (!store) {
    const parallel = ctx.options.maxParallel;
    store = openChangeStore(ctx.stateDir, parallel > 0 ? { keptRounds: parallel } : {});
    stores.set(ctx, store);
  }
  return store;
}
