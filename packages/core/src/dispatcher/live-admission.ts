import type { AdmissionState } from '../admission/admit.js';
import { admissionTaskOf } from '../admission/task-view.js';
import { takesAgentSlot } from '../lifecycle/lifecycle-table.js';
import type { DispatchContext } from './context.js';

/**
 * The admission input of one scheduling pass, from one snapshot of the run: its task
 * runtimes (through the shared task view), the held claims and the stages running now. Pure;
 * the scheduler calls it on every pass. `live`: tasks with a running stage or a pending
 * backoff; `activeStages`: stages holding a `maxParallel` slot.
 */
export function liveAdmissionState(
  ctx: Pick<DispatchContext, 'tasks' | 'archived' | 'claimIndex' | 'options'>,
  live: ReadonlySet<string>,
  activeStages: number,
): AdmissionState {
  const runtimes = [...ctx.tasks.values()];
  const group = ctx.options.taskGroup;
  return {
    tasks: runtimes
      .filter((rt) => rt.state.phase !== 'done')
      .map((rt) => admissionTaskOf(rt.task, !takesAgentSlot(rt.state.phase))),
    archivedComplete: ctx.archived,
    liveAttempts: live,
    blocked: new Set(
      runtimes.filter((rt) => rt.state.blocked || rt.halted !== undefined).map((rt) => rt.id),
    ),
    invalid: new Set(runtimes.filter((rt) => !rt.task.valid).map((rt) => rt.id)),
    claims: ctx.claimIndex,
    activeStages,
    maxParallel: ctx.options.maxParallel,
    ...(group
      ? { scope: new Set(runtimes.filter((rt) => rt.group === group).map((rt) => rt.id)) }
      : {}),
  };
}
