import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { claimKeys } from '../admission/task-view.js';
import { readClaims } from '../claims/claim-store.js';
import { DEFAULT_MAX_PLAN_LOOPS } from '../dispatcher/plan-loop-cap.js';
import { SwitchyardError } from '../errors.js';
import { listOpenEscalations } from '../escalation/escalation-store.js';
import { readEvents } from '../events/event-bus.js';
import type { RunEvent } from '../events/event-schema.js';
import { readLockHolder } from '../lock/workspace-lock.js';
import { isSameProcessAlive } from '../process/process-identity.js';
import { probeAttempt } from '../state/attempt-probe.js';
import type { TaskState } from '../state/state-schema.js';
import { openStateStore } from '../state/state-store.js';
import { loadWorkspace, type WorkspaceModel } from '../workspace/load.js';
import { agentTaskDir, stateDir as stateDirOf } from '../workspace/paths.js';
import type { StatusInput } from './build-status.js';

/** Facts a long-lived reader (the monitor) already holds, so they are not read again. */
export interface GatherReuse {
  /** The workspace model (plans parsed), when the caller knows no plan changed since. */
  model?: WorkspaceModel;
  /** The event log, when the caller follows it incrementally. */
  events?: readonly RunEvent[];
  /** Every task's persisted state, when the caller re-reads only the files that changed. */
  states?: TaskState[];
}

/**
 * Reads everything `switchyard status` needs from disk and /proc: the task plans, each
 * task's persisted state, claims, the event log, the lock holder, and which unfinished
 * attempts still have a live process (PID + start token + marker). Reads only; safe while a
 * dispatcher runs. Throws `SY_USAGE` when the folder has no `agent-task/`.
 */
export function gatherStatus(
  workspaceDir: string,
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
  const states = keptWorktreesOnly(reuse.states ?? openStateStore(stateDir).list());
  const liveAttempts = new Map<string, number>();
  for (const state of states) {
    for (const record of state.attempts) {
      if (record.status === 'finished') continue;
      const probe = probeAttempt(record);
      if (probe.state === 'live') liveAttempts.set(record.id, probe.pid);
    }
  }
  const holder = readLockHolder(stateDir);
  const claims = new Map<string, string>();
  for (const claim of readClaims(stateDir))
    for (const path of claim.paths) claims.set(path, claim.taskId);
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
    archived: [...model.archived.values()].filter((a) => a.complete).map((a) => a.id),
    states,
    claims,
    events: reuse.events ?? readEvents(join(stateDir, 'events.jsonl')).events,
    ...(holder
      ? {
          lock: {
            holder,
            alive: isSameProcessAlive({ pid: holder.pid, startToken: holder.startToken }),
          },
        }
      : {}),
    liveAttempts,
    escalations: listOpenEscalations(workspace, stateDir, states),
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
