import type { ClaimConflict, TaskId } from '@switchyard/core';

/** What admission needs to know about one active (not archived) task. */
export interface AdmissionTask {
  id: TaskId;
  /** Canonical write-set paths (claim keys). */
  writeSet: readonly string[];
  /** Dependency task ids (active or archived). */
  dependsOn: readonly TaskId[];
  /** Its next stage takes no `maxParallel` agent slot (a definition-of-done gate, the
   * archive): admitted whatever the slot count, and not counted. */
  slotFree?: boolean;
  /** It has not started: admitting it creates its worktree (see `applyQueue`). */
  fresh?: boolean;
}

/** Worktree isolation: tasks approved and waiting for the (serialized) apply, and how many
 * may wait before no new task starts. */
export interface ApplyQueueState {
  waiting: number;
  /** 0 = unlimited. */
  limit: number;
}

/** Worktree isolation: the disk the task worktrees take, and the cap (`isolation.maxDiskBytes`). */
export interface WorktreeDiskState {
  bytes: number;
  cap: number;
}

/** The whole state admission decides from. Nothing else is read: the function is pure. */
export interface AdmissionState {
  /** Every active task of the physical workspace (all groups). */
  tasks: readonly AdmissionTask[];
  /** Tasks archived with `complete.log`. */
  archivedComplete: ReadonlySet<TaskId>;
  /** Tasks with live attempt evidence (a running stage), archived or not. */
  liveAttempts: ReadonlySet<TaskId>;
  /** Tasks the dispatcher has blocked. */
  blocked?: ReadonlySet<TaskId>;
  /** Tasks that cannot run: invalid PLAN, unknown dependency, cycle. */
  invalid?: ReadonlySet<TaskId>;
  /** Held claims: path -> holder. */
  claims: ReadonlyMap<string, TaskId>;
  /** Active task stages in the whole physical workspace, any task group. */
  activeStages: number;
  /** Workspace-wide stage limit; 0 = unlimited. */
  maxParallel: number;
  /** `--task-group` scope: only these tasks are admitted (others still hold claims and slots). */
  scope?: ReadonlySet<TaskId>;
  /** Worktree isolation: the apply queue; a fresh task waits while it is full. */
  applyQueue?: ApplyQueueState;
  /** Worktree isolation with a disk cap: a fresh task waits while the worktrees fill it. */
  worktreeDisk?: WorktreeDiskState;
}

/** Where one task stands. */
export type AdmissionStatus =
  | 'admitted'
  | 'active'
  | 'waiting-dependencies'
  | 'waiting-claim'
  | 'waiting-slot'
  | 'waiting-apply'
  | 'waiting-disk'
  | 'blocked'
  | 'dependency-blocked'
  | 'invalid'
  | 'out-of-scope';

/** The decision for one task. */
export interface AdmissionDecision {
  id: TaskId;
  status: AdmissionStatus;
  /** Unfinished dependencies (waiting-dependencies) or the blocked/invalid ones (dependency-blocked). */
  waitingOn?: TaskId[];
  /** Paths held by other tasks (waiting-claim). */
  conflicts?: ClaimConflict[];
}

/** Result of {@link admit}. */
export interface AdmissionResult {
  /** Tasks to start now, in admission order. */
  admitted: TaskId[];
  /** One decision per task, in admission order. */
  decisions: AdmissionDecision[];
}

/** Task ids in code-unit order, admission's order after the claim holders. */
export const byId = (a: TaskId, b: TaskId) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Decides which tasks start now. Order (deterministic): tasks that already hold a claim
 * first (they were admitted before: a retry, a follow-up plan, a restart), then by task id
 * in code-point order. A task is ready when every dependency is archived complete and has
 * no live attempt; it is admitted when ready, none of its paths is held by another task
 * (held claims plus tasks admitted earlier in this pass), and fewer than `maxParallel`
 * stages are active in the workspace. Under worktree isolation a task that has not started
 * also waits while the apply queue is full (see {@link applyQueueFull}) or while the
 * worktrees fill their disk cap (see {@link worktreeDiskFull}).
 */
export function admit(state: AdmissionState): AdmissionResult {
  const tasks = new Map(state.tasks.map((t) => [t.id, t]));
  const holdsClaim = new Set(state.claims.values());
  const order = [...tasks.keys()].sort(
    (a, b) => Number(holdsClaim.has(b)) - Number(holdsClaim.has(a)) || byId(a, b),
  );
  const pass = admissionPass(state, stuckTasks(state, tasks), (id) => tasks.get(id));
  const admitted: TaskId[] = [];
  const decisions: AdmissionDecision[] = [];
  for (const id of order) {
    const decision = decideTask(pass, tasks.get(id) as AdmissionTask);
    if (decision.status === 'admitted') admitted.push(id);
    decisions.push(decision);
  }
  return { admitted, decisions };
}

/** What one pass carries from task to task: paths taken so far and stages counted so far. */
export interface AdmissionPass {
  state: AdmissionState;
  /** Blocked and invalid tasks and their dependents; undefined when there are none. */
  stuck: ReadonlySet<TaskId> | undefined;
  taken: Map<string, TaskId>;
  limit: number;
  active: number;
}

/** A pass's starting point: the held claims, and the paths of tasks with a live attempt. */
export function admissionPass(
  state: AdmissionState,
  stuck: ReadonlySet<TaskId> | undefined,
  taskOf: (id: TaskId) => AdmissionTask | undefined,
): AdmissionPass {
  const taken = new Map(state.claims);
  for (const id of state.liveAttempts)
    for (const p of taskOf(id)?.writeSet ?? []) if (!taken.has(p)) taken.set(p, id);
  const limit = state.maxParallel > 0 ? state.maxParallel : Number.POSITIVE_INFINITY;
  return { state, stuck, taken, limit, active: state.activeStages };
}

/**
 * Admission's rules for one task, in their order; an admitted task takes its paths and (unless
 * its stage is slot-free) a slot in the pass. The one place the rules are written: `admit` and
 * the scheduler's kept passes (admit-passes.ts) both decide through it.
 */
export function decideTask(pass: AdmissionPass, task: AdmissionTask): AdmissionDecision {
  const { state } = pass;
  const id = task.id;
  if (state.liveAttempts.has(id)) return { id, status: 'active' };
  if (state.invalid?.has(id)) return { id, status: 'invalid' };
  if (state.blocked?.has(id)) return { id, status: 'blocked' };
  if (task.dependsOn.length > 0) {
    const stuck = pass.stuck;
    if (stuck !== undefined && stuck.size > 0) {
      const blockedDeps = task.dependsOn.filter((d) => stuck.has(d));
      if (blockedDeps.length > 0)
        return { id, status: 'dependency-blocked', waitingOn: blockedDeps };
    }
    const open = task.dependsOn.filter(
      (d) => !state.archivedComplete.has(d) || state.liveAttempts.has(d),
    );
    if (open.length > 0) return { id, status: 'waiting-dependencies', waitingOn: open };
  }
  if (state.scope && !state.scope.has(id)) return { id, status: 'out-of-scope' };
  let conflicts: ClaimConflict[] | undefined;
  for (const path of task.writeSet) {
    const holder = pass.taken.get(path);
    if (holder === undefined || holder === id) continue;
    conflicts ??= [];
    conflicts.push({ path, holder });
  }
  if (conflicts !== undefined) return { id, status: 'waiting-claim', conflicts };
  if (task.fresh && applyQueueFull(state.applyQueue)) return { id, status: 'waiting-apply' };
  if (task.fresh && worktreeDiskFull(state.worktreeDisk)) return { id, status: 'waiting-disk' };
  if (!task.slotFree && pass.active >= pass.limit) return { id, status: 'waiting-slot' };
  for (const path of task.writeSet) pass.taken.set(path, id);
  if (!task.slotFree) pass.active += 1;
  return { id, status: 'admitted' };
}

/**
 * The apply queue rule: applies are serialized per repository, so under worktree isolation no
 * new task starts (and gets a worktree) while `limit` approved tasks already wait for theirs.
 * Worktrees then scale with the concurrency, not with the backlog; tasks already started go
 * on, so at most `limit` plus the running stages ever wait. A rule of its own beside the slot
 * count: it holds only fresh tasks.
 */
export function applyQueueFull(queue: ApplyQueueState | undefined): boolean {
  return queue !== undefined && queue.limit > 0 && queue.waiting >= queue.limit;
}

/**
 * The disk cap rule (`isolation.maxDiskBytes`): while the task worktrees take the cap or more,
 * no new task starts (a new worktree, its dependencies installed, would take more); tasks
 * already started go on, and archives (which remove their worktrees) or `switchyard clean`
 * make room. Waiting instead of filling the disk.
 */
export function worktreeDiskFull(disk: WorktreeDiskState | undefined): boolean {
  return disk !== undefined && disk.cap > 0 && disk.bytes >= disk.cap;
}

/**
 * Tasks that cannot finish without a human: blocked, invalid, and everything that depends
 * on one of them (the dependency closure). Independent tasks are not in it.
 */
export function stuckTasks(
  state: AdmissionState,
  tasks: ReadonlyMap<TaskId, AdmissionTask>,
): Set<TaskId> {
  // Nothing blocked or invalid (the usual pass): nothing is stuck, whatever depends on what.
  if (!state.blocked?.size && !state.invalid?.size) return new Set();
  const dependents = new Map<TaskId, TaskId[]>();
  for (const task of tasks.values())
    for (const dep of task.dependsOn) {
      const list = dependents.get(dep);
      if (list) list.push(task.id);
      else dependents.set(dep, [task.id]);
    }
  const stuck = new Set<TaskId>([...(state.blocked ?? []), ...(state.invalid ?? [])]);
  const stack = [...stuck];
  while (stack.length > 0) {
    for (const next of dependents.get(stack.pop() as TaskId) ?? []) {
      if (!stuck.has(next)) {
        stuck.add(next);
        stack.push(next);
      }
    }
  }
  return stuck;
}
