import { existsSync, realpathSync } from 'node:fs';
import {
  agentTaskDir,
  SwitchyardError,
  stateDir as stateDirOf,
  type TaskState,
} from '@switchyard/core';
import { readLockHolder } from '@switchyard/store-fs';
import { loadWorkspace, type WorkspaceModel } from '@switchyard/tasks';
import { isSameProcessAlive } from '@switchyard/utils';
import { claimKeys } from '../admission/task-view.js';
import { DEFAULT_MAX_PLAN_LOOPS } from '../dispatcher/corrections/plan-loop-cap.js';
import { admittedTasks, runRefusal } from '../dispatcher/run-refusal.js';
import { probeAttempt } from './attempt-probe.js';
import type { StatusFacts } from './status-facts.js';
import type { StatusInput } from './status-types.js';

/** Facts a long-lived reader (the monitor) already holds, so they are not read again. */
export interface GatherReuse {
  /** The workspace model (plans parsed), when the caller knows no plan changed since. */
  model?: WorkspaceModel;
}

/**
 * Puts together everything `switchyard status` needs: the task plans, the stored facts (task
 * states, claims, events, open escalations: {@link readStatusFacts} reads them through the
 * store), the lock holder, and which unfinished attempts still have a live process (PID +
 * start token + marker). Reads only; safe while a dispatcher runs. Throws `SY_USAGE` when the
 * folder has no `agent-task/`.
 */
export function gatherStatus(
  workspaceDir: string,
  facts: StatusFacts,
  now = new Date(),
  reuse: GatherReuse = {},
): StatusInput {
  if (!existsSync(agentTaskDir(workspaceDir))) {
    throw new SwitchyardError('SY_USAGE', `${workspaceDir} has no agent-task/ folder.`, {
      hint: 'Run `switchyard status` in the repository root, or pass --workspace <dir>.',
    });
  }
  const workspace = realpathSync(workspaceDir);
  const stateDir = stateDirOf(workspace);
  const model = reuse.model ?? loadWorkspace(workspace);
  const states = keptWorktreesOnly(facts.states);
  const liveAttempts = new Map<string, number>();
  for (const state of states) {
    for (const record of state.attempts) {
      if (record.status === 'finished') continue;
      const probe = probeAttempt(record);
      if (probe.state === 'live') liveAttempts.set(record.id, probe.pid);
    }
  }
  const holder = readLockHolder(stateDir);
  const refusal = runRefusal(model, { admitted: admittedTasks(facts.states) });
  const claims = new Map<string, string>();
  for (const claim of facts.claims) for (const path of claim.paths) claims.set(path, claim.taskId);
  return {
    workspace,
    now,
    tasks: model.tasks.map((t) => {
      const problem = t.problems.find((p) => p.severity !== 'warning');
      return {
        id: t.id,
        dependsOn: t.dependsOn.map((d) => d.id),
        // the claim keys (path and symlink target), as the scheduler and dry run claim them
        writeSet: claimKeys(t.writeSet),
        maxPlanLoops: t.maxPlanLoops ?? DEFAULT_MAX_PLAN_LOOPS,
        ...(t.valid ? {} : { invalid: problem?.message ?? 'see `switchyard validate-plan`' }),
        ...(t.runner === 'local' ? { local: true } : {}),
      };
    }),
    ...completion(
      [...model.archived.values()].filter((a) => a.complete).map((a) => a.id),
      states,
    ),
    states,
    claims,
    events: facts.events,
    ...(holder
      ? {
          lock: {
            holder,
            alive: isSameProcessAlive({ pid: holder.pid, startToken: holder.startToken }),
          },
        }
      : {}),
    liveAttempts,
    escalations: facts.escalations,
    ...(refusal ? { runRefusal: refusal } : {}),
  };
}

/**
 * The task states with the disk figure of a worktree removed since it was measured (`switchyard
 * clean --blocked` between runs) dropped: what the disk cap and the monitor count is only what
 * is still on disk. Copies; the states read are never changed.
 */
function keptWorktreesOnly(states: TaskState[]): TaskState[] {
  return states.map((state) => {
    const facts = state.isolation;
    if (!facts?.disk || existsSync(facts.path)) return state;
    const { disk: _gone, ...rest } = facts;
    return { ...state, isolation: rest };
  });
}

/**
 * Done is what the dispatcher recorded, as a run reads it (dispatcher/completion-record.ts):
 * an archive entry without that record is listed as unrecorded, never as done. A workspace
 * with no records at all has its archive taken as done (the next run records it so, once).
 */
function completion(
  entries: string[],
  states: readonly TaskState[],
): { archived: string[]; unrecorded: string[] } {
  if (states.length === 0) return { archived: entries, unrecorded: [] };
  const phase = new Map(states.map((s) => [s.task, s.phase]));
  return {
    archived: entries.filter((id) => phase.get(id) === 'done'),
    // one the dispatcher is archiving itself shows as waiting for its archive move
    unrecorded: entries.filter((id) => phase.get(id) !== 'done' && phase.get(id) !== 'archive'),
  };
}
