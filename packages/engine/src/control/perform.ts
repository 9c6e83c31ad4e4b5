import type { Store } from '@switchyard/core';
import type { RunControl } from '../dispatcher/run-control.js';
import { actOffline } from './act-offline.js';
import type { Actor, HumanActionOutcome, HumanActionRequest } from './human-action.js';

/**
 * Carries out a human's action (validated with `humanActionRequestSchema`): on the run of
 * this process while its dispatcher schedules (`control`), else on the workspace as the CLI
 * would, through the store `openStore` opens (closed after). Throws `SY_ACTION_REFUSED`
 * (with a hint) when the action does not apply now.
 */
export async function performHumanAction(
  workspace: string,
  request: HumanActionRequest,
  actor: Actor,
  control: RunControl | undefined,
  openStore: () => Store,
): Promise<HumanActionOutcome> {
  if (control?.live) return control.act(request, actor);
  const store = openStore();
  try {
    return await actOffline(workspace, store, request, actor);
  } finally {
    await store.close();
  }
}
