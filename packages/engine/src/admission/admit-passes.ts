import type { TaskId } from '@switchyard/core';
import {
  type AdmissionDecision,
  type AdmissionResult,
  type AdmissionState,
  type AdmissionTask,
  admissionPass,
  admit,
  byId,
  decideTask,
  stuckTasks,
} from './admit.js';

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
    const pass = admissionPass(state, stuck, taskOf);
    const admitted: TaskId[] = [];
    const decisions: AdmissionDecision[] = [];
    const decide = (id: TaskId) => {
      const decision = decideTask(pass, tasks[indexOf.get(id)!]!);
      if (decision.status === 'admitted') admitted.push(id);
      decisions.push(decision);
    };
    for (const id of holders) decide(id);
    for (const id of sorted) if (!holding.has(id)) decide(id);
    return { admitted, decisions };
  };
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
