import type { AdmissionState, AdmissionTask, ApplyQueueState } from '../admission/admit.js';
import { admissionTaskOf, type TaskViewSource } from '../admission/task-view.js';
import { worktreeBytes } from '../admission/worktree-bytes.js';
import { INITIAL_PHASE, takesAgentSlot } from '../lifecycle/index.js';
import type { DispatchContext, TaskRuntime } from './types.js';

/**
 * The admission input of one scheduling pass, from one snapshot of the run: its task
 * runtimes (through the shared task view), the held claims and the stages running now. Pure;
 * the scheduler calls it on every pass. `live`: tasks with a running stage or a pending
 * backoff; `activeStages`: stages holding a `maxParallel` slot.
 */
export function liveAdmissionState(
  ctx: Pick<DispatchContext, 'tasks' | 'archived' | 'claimIndex' | 'options' | 'shared'>,
  live: ReadonlySet<string>,
  activeStages: number,
): AdmissionState {
  // On a shared backlog only the tasks this run took are admitted here; the others' claims are
  // in the store (a claim taken on another machine refuses this one's) and their end reaches
  // `archived` through the backlog.
  const runtimes = [...ctx.tasks.values()].filter(
    (rt) => !ctx.shared || ctx.shared.owned.has(rt.id),
  );
  const group = ctx.options.taskGroup;
  return {
    tasks: runtimes
      .filter((rt) => rt.state.phase !== 'done')
      .map((rt) => admissionViewOf(rt.task, !takesAgentSlot(rt.state.phase), isFresh(rt))),
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
    ...(ctx.options.isolation ? { applyQueue: applyQueueOf(ctx, runtimes) } : {}),
    ...(ctx.options.isolation && ctx.options.worktreeDiskCap
      ? {
          worktreeDisk: {
            bytes: worktreeBytes(runtimes.map((rt) => rt.state)),
            cap: ctx.options.worktreeDiskCap,
          },
        }
      : {}),
  };
}

// A task's admission view changes only when its plans are read again (a new task object, with
// new write-set and dependency lists): every scheduling pass reuses it instead of building each
// task's claim keys again. Four views per task, by whether it is slot-free and fresh.
const views = new WeakMap<
  TaskViewSource,
  { writeSet: unknown; dependsOn: unknown; byFlags: (AdmissionTask | undefined)[] }
>();

/** {@link admissionTaskOf}, built once per task object and flags (admission never changes it). */
export function admissionViewOf(
  task: TaskViewSource,
  slotFree: boolean,
  fresh: boolean,
): AdmissionTask {
  let kept = views.get(task);
  if (!kept || kept.writeSet !== task.writeSet || kept.dependsOn !== task.dependsOn) {
    kept = { writeSet: task.writeSet, dependsOn: task.dependsOn, byFlags: [] };
    views.set(task, kept);
  }
  const index = (slotFree ? 2 : 0) + (fresh ? 1 : 0);
  const view = kept.byFlags[index] ?? admissionTaskOf(task, slotFree, fresh);
  kept.byFlags[index] = view;
  return view;
}

/** A task that has not started: admitting it would give it a worktree. */
function isFresh(rt: TaskRuntime): boolean {
  return (
    rt.state.phase === INITIAL_PHASE &&
    rt.state.attempts.length === 0 &&
    rt.state.isolation === undefined &&
    rt.task.runner !== 'local'
  );
}

/** Approved tasks waiting for the apply (their completion promise checked or about to be),
 * and how many may wait (`maxApplyQueue`, default `maxParallel`). */
function applyQueueOf(
  ctx: Pick<DispatchContext, 'options'>,
  runtimes: readonly TaskRuntime[],
): ApplyQueueState {
  const waiting = runtimes.filter(
    (rt) =>
      (rt.state.phase === 'apply' || (rt.state.phase === 'promise' && rt.state.isolation)) &&
      !rt.state.blocked &&
      rt.halted === undefined,
  ).length;
  return { waiting, limit: ctx.options.maxApplyQueue ?? ctx.options.maxParallel };
}
