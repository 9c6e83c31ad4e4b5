import type { AdmissionState, AdmissionTask } from '../admission/admit.js';
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
  // `archived` through the backlog. One walk over the run's tasks: the scheduler calls this on
  // every pass, over every task of the backlog.
  const group = ctx.options.taskGroup;
  const isolation = ctx.options.isolation;
  const diskCap = isolation ? ctx.options.worktreeDiskCap : undefined;
  const tasks: AdmissionTask[] = [];
  const blocked = new Set<string>();
  const invalid = new Set<string>();
  const scope = group ? new Set<string>() : undefined;
  let applyWaiting = 0;
  let diskBytes = 0;
  for (const rt of ctx.tasks.values()) {
    if (ctx.shared && !ctx.shared.owned.has(rt.id)) continue;
    const { state } = rt;
    const halted = state.blocked || rt.halted !== undefined;
    if (state.phase !== 'done')
      tasks.push(admissionViewOf(rt.task, !takesAgentSlot(state.phase), isFresh(rt)));
    if (halted) blocked.add(rt.id);
    if (!rt.task.valid) invalid.add(rt.id);
    if (scope && rt.group === group) scope.add(rt.id);
    if (isolation && waitsForApply(rt) && !halted) applyWaiting += 1;
    if (diskCap) diskBytes += worktreeBytes([state]);
  }
  return {
    tasks,
    archivedComplete: ctx.archived,
    liveAttempts: live,
    blocked,
    invalid,
    claims: ctx.claimIndex,
    activeStages,
    maxParallel: ctx.options.maxParallel,
    ...(scope ? { scope } : {}),
    ...(isolation
      ? {
          applyQueue: {
            waiting: applyWaiting,
            limit: ctx.options.maxApplyQueue ?? ctx.options.maxParallel,
          },
        }
      : {}),
    ...(diskCap ? { worktreeDisk: { bytes: diskBytes, cap: diskCap } } : {}),
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

/** An approved task waiting for the apply: its completion promise checked or about to be
 * (the apply queue counts those not blocked; `maxApplyQueue`, default `maxParallel`, may wait). */
export function waitsForApply(rt: Pick<TaskRuntime, 'state'>): boolean {
  return rt.state.phase === 'apply' || (rt.state.phase === 'promise' && !!rt.state.isolation);
}
