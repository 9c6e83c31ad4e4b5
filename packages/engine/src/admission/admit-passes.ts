import type { ClaimConflict, TaskId } from '@switchyard/core';
import {
  type AdmissionDecision,
  type AdmissionResult,
  type AdmissionState,
  type AdmissionTask,
  admit,
  applyQueueFull,
  stuckTasks,
  worktreeDiskFull,
} from './admit.js';

const byId = (a: TaskId, b: TaskId) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * {@link admit} for a caller that decides again and again over a backlog that changes little
 * between calls (the scheduler, on every pass): each call returns exactly what `admit` returns
 * for the same state (the property test drives both through sequences of changes), but the
 * tasks' id order and their index are kept from call to call and updated only for the tasks
 * added or removed since, and a task is decided without building lists it does not need. A
 * pass then costs a few lookups per task instead of a sort and a map of the whole backlog.
 */
export function admitPasses(): (state: AdmissionState) => AdmissionResult {
  /** The ids of the last call's tasks, in their input order, and where each one stands. */
  let ids: TaskId[] = [];
  let indexOf = new Map<TaskId, number>();
  /** The same ids sorted (code-unit order, as `admit` sorts them). */
  let sorted: TaskId[] = [];

  const reindex = (tasks: readonly AdmissionTask[]): boolean => {
    const next = new Map<TaskId, number>();
    for (let i = 0; i < tasks.length; i++) next.set(tasks[i]!.id, i);
    // A list naming a task twice is left to `admit` itself (its map keeps the last view).
    if (next.size !== tasks.length) return false;
    const kept = sorted.filter((id) => next.has(id));
    const added = tasks
      .filter((t) => !indexOf.has(t.id))
      .map((t) => t.id)
      .sort(byId);
    sorted = added.length === 0 ? kept : mergeSorted(kept, added);
    ids = tasks.map((t) => t.id);
    indexOf = next;
    return true;
  };

  /** The last pass's stuck tasks, and what they were found from. */
  let lastStuck:
    | { tasks: readonly AdmissionTask[]; blocked: TaskId[]; invalid: TaskId[]; stuck: Set<TaskId> }
    | undefined;
  // While a task is blocked every pass needs the closure of its dependents: found again only
  // when a task's view (its dependencies) or the blocked and invalid tasks changed.
  const stuckOf = (state: AdmissionState): Set<TaskId> => {
    const blocked = [...(state.blocked ?? [])];
    const invalid = [...(state.invalid ?? [])];
    if (
      lastStuck &&
      sameItems(lastStuck.tasks, state.tasks) &&
      sameItems(lastStuck.blocked, blocked) &&
      sameItems(lastStuck.invalid, invalid)
    )
      return lastStuck.stuck;
    const stuck = stuckTasks(state, new Map(state.tasks.map((t) => [t.id, t])));
    lastStuck = { tasks: [...state.tasks], blocked, invalid, stuck };
    return stuck;
  };

  return function admitPass(state) {
    const tasks = state.tasks;
    if (!sameIds(tasks, ids) && !reindex(tasks)) {
      ids = [];
      indexOf = new Map();
      sorted = [];
      return admit(state);
    }
    const taskOf = (id: TaskId) => {
      const i = indexOf.get(id);
      return i === undefined ? undefined : tasks[i];
    };
    // Tasks that hold a claim come first (by id), then the others by id.
    const holders: TaskId[] = [];
    const holding = new Set<TaskId>();
    for (const holder of state.claims.values())
      if (!holding.has(holder) && indexOf.has(holder)) {
        holding.add(holder);
        holders.push(holder);
      }
    holders.sort(byId);
    const stuck = state.blocked?.size || state.invalid?.size ? stuckOf(state) : undefined;
    const taken = new Map(state.claims);
    for (const id of state.liveAttempts)
      for (const p of taskOf(id)?.writeSet ?? []) if (!taken.has(p)) taken.set(p, id);
    const limit = state.maxParallel > 0 ? state.maxParallel : Number.POSITIVE_INFINITY;
    const pass = { state, stuck, taken, limit, active: state.activeStages };
    const admitted: TaskId[] = [];
    const decisions: AdmissionDecision[] = [];
    const decide = (id: TaskId) => {
      const decision = decideOne(pass, tasks[indexOf.get(id)!]!);
      if (decision.status === 'admitted') admitted.push(id);
      decisions.push(decision);
    };
    for (const id of holders) decide(id);
    for (const id of sorted) if (!holding.has(id)) decide(id);
    return { admitted, decisions };
  };
}

/** What one pass carries from task to task: paths taken so far and stages counted so far. */
interface Pass {
  state: AdmissionState;
  stuck: ReadonlySet<TaskId> | undefined;
  taken: Map<string, TaskId>;
  limit: number;
  active: number;
}

/** The rules of {@link admit}'s loop for one task, in the same order. */
function decideOne(pass: Pass, task: AdmissionTask): AdmissionDecision {
  const { state } = pass;
  const id = task.id;
  if (state.liveAttempts.has(id)) return { id, status: 'active' };
  if (state.invalid?.has(id)) return { id, status: 'invalid' };
  if (state.blocked?.has(id)) return { id, status: 'blocked' };
  if (task.dependsOn.length > 0) {
    const stuck = pass.stuck;
    if (stuck !== undefined) {
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

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameIds(tasks: readonly AdmissionTask[], ids: readonly TaskId[]): boolean {
  if (tasks.length !== ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (tasks[i]!.id !== ids[i]) return false;
  return true;
}

/** Two sorted id lists as one. */
function mergeSorted(a: readonly TaskId[], b: readonly TaskId[]): TaskId[] {
  const out: TaskId[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(byId(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
