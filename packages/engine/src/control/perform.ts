import type { RunControl } from '../dispatcher/run-control.js';
import { actOffline } from './act-offline.js';
import type { Actor, HumanActionOutcome, HumanActionRequest } from './human-action.js';

/**
 * Carries out a human's action (validated with `humanActionRequestSchema`): on the run of
 * this process while its dispatcher schedules (`control`), else on the workspace as the CLI
 * would. Throws `SY_ACTION_REFUSED` (with a hint) when the action does not apply now.
 */
export function performHumanAction(
  workspace: string,
  request: HumanActionRequest,
  actor: Actor,
  control?: RunControl,
): Promise<HumanActionOutcome> {
  return control?.live ? control.act(request, actor) : actOffline(workspace, request, actor);
}
