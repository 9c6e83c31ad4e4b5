import type { DependencyRef, TaskId, WriteSetEntry } from '@switchyard/core';
import { FINAL_PHASE, type Phase, takesAgentSlot } from '../lifecycle/index.js';
import type { AdmissionTask } from './admit.js';

/**
 * The claim keys of a write set: every path as written and, when a symlink inside the
 * workspace makes it differ, its real target too. Two tasks naming one file by different
 * paths (`link/x.ts`, `real/x.ts`) then share a key, so they never run at once.
 */
export function claimKeys(writeSet: readonly WriteSetEntry[]): string[] {
  const keys = new Set<string>();
  for (const entry of writeSet) {
    keys.add(entry.path);
    if (entry.resolved !== undefined) keys.add(entry.resolved);
  }
  return [...keys];
}

/** What a task contributes to admission, from its parsed plans. */
export interface TaskViewSource {
  id: TaskId;
  writeSet: readonly WriteSetEntry[];
  dependsOn: readonly DependencyRef[];
}

/**
 * The one view of a task that admission decides from. The scheduler, the dry run, `status`
 * and the claim store all build it here, so they cannot disagree on what a task claims or
 * waits on. `slotFree`: its next stage takes no `maxParallel` slot; `fresh`: it has not
 * started, so the apply queue holds it back (see admit).
 */
export function admissionTaskOf(
  task: TaskViewSource,
  slotFree?: boolean,
  fresh?: boolean,
): AdmissionTask {
  return {
    id: task.id,
    writeSet: claimKeys(task.writeSet),
    dependsOn: task.dependsOn.map((d) => d.id),
    ...(slotFree ? { slotFree } : {}),
    ...(fresh ? { fresh } : {}),
  };
}

/**
 * Tasks whose next stage takes no `maxParallel` slot (a gate, the archive), from their persisted
 * phases, as the live run sees them. A `done` state of a task still active runs again from its
 * first stage, so it is not slot-free.
 */
export function slotFreeTasks(states: Iterable<{ task: TaskId; phase: Phase }>): Set<TaskId> {
  const free = new Set<TaskId>();
  for (const s of states) if (s.phase !== FINAL_PHASE && !takesAgentSlot(s.phase)) free.add(s.task);
  return free;
}
