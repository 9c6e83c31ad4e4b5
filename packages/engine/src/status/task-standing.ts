import type { AttemptRecord, TaskState } from '@switchyard/core';
import type {
  BlockedEntry,
  DispatcherStatus,
  RunningEntry,
  StatusInput,
  StatusTask,
  WaitingEntry,
} from './status-types.js';

/** Where a task stands by its own records, before admission decides the rest (`pending`). */
export type Standing =
  | { kind: 'running'; entries: RunningEntry[] }
  | { kind: 'waiting'; entry: WaitingEntry }
  | { kind: 'blocked'; entry: BlockedEntry }
  | { kind: 'pending' };

/**
 * A task's standing: running (its worktree being set up, or an unfinished attempt with a live
 * process or a working dispatcher), blocked (its persisted reason, or an invalid plan),
 * interrupted (an attempt that ended unwatched), or pending admission.
 */
export function placeTask(
  task: StatusTask,
  state: TaskState | undefined,
  input: StatusInput,
  dispatcher: DispatcherStatus['state'],
): Standing {
  const setup = settingUp(task.id, state, dispatcher === 'running');
  if (setup?.kind === 'running') return { kind: 'running', entries: [setup.entry] };
  if (setup?.kind === 'waiting') return setup;
  const open = state?.attempts.filter((a) => a.status !== 'finished') ?? [];
  const live = open.filter((a) => input.liveAttempts.has(a.id));
  if (live.length > 0 || (open.length > 0 && dispatcher === 'running')) {
    const shown = live.length > 0 ? live : open;
    return {
      kind: 'running',
      entries: shown.map((a) => runningEntry(a, task.id, input, dispatcher)),
    };
  }
  if (state?.blocked)
    return {
      kind: 'blocked',
      entry: {
        task: task.id,
        stage: state.blocked.stage,
        reason: state.blocked.reason,
        evidence: state.blocked.evidence,
        since: state.blocked.at,
        ...(state.blocked.class ? { class: state.blocked.class } : {}),
        ...(state.blocked.catalog ? { catalog: state.blocked.catalog } : {}),
      },
    };
  if (task.invalid)
    return {
      kind: 'blocked',
      entry: {
        task: task.id,
        stage: 'plan',
        reason: `invalid plan: ${task.invalid}`,
        evidence: [],
      },
    };
  if (open.length > 0)
    return {
      kind: 'waiting',
      entry: {
        task: task.id,
        kind: 'interrupted',
        why: `attempt ${open[0]!.id} ended while no dispatcher watched it; the next run judges it from its evidence`,
        phase: state!.phase,
        planLoop: state!.planLoop,
      },
    };
  return { kind: 'pending' };
}

/**
 * A task whose new worktree is being set up (config `isolation.setup`) runs no attempt yet:
 * it shows as running "setting up" while a dispatcher works, and as interrupted otherwise
 * (the next run sets the worktree up again).
 */
function settingUp(
  task: string,
  state: TaskState | undefined,
  dispatcherRunning: boolean,
): { kind: 'running'; entry: RunningEntry } | { kind: 'waiting'; entry: WaitingEntry } | undefined {
  const setup = state?.isolation?.setup;
  if (!state || setup?.state !== 'running' || state.blocked) return undefined;
  const command = setup.command
    ? `${setup.command.join(' ')} (${setup.index} of ${setup.total})`
    : '';
  if (!dispatcherRunning)
    return {
      kind: 'waiting',
      entry: {
        task,
        kind: 'interrupted',
        why: `the set-up of its worktree was interrupted${command ? ` at ${command}` : ''}; the next run sets it up again`,
        phase: state.phase,
        planLoop: state.planLoop,
      },
    };
  return {
    kind: 'running',
    entry: {
      task,
      role: 'setup',
      planLoop: state.planLoop,
      attempt: 'setup',
      target: 'setup',
      since: setup.since,
      supervision: 'watched',
      attemptDir: '',
      activity: `setting up its worktree: ${command}`,
    },
  };
}

function runningEntry(
  a: AttemptRecord,
  task: string,
  input: StatusInput,
  state: DispatcherStatus['state'],
): RunningEntry {
  const pid = input.liveAttempts.get(a.id) ?? a.pid;
  return {
    task,
    role: a.role,
    planLoop: a.planLoop,
    attempt: a.id,
    target: a.target,
    ...(pid !== undefined ? { pid } : {}),
    since: a.startedAt,
    supervision: !input.liveAttempts.has(a.id)
      ? 'starting'
      : state === 'running'
        ? 'watched'
        : 'orphaned',
    attemptDir: a.attemptDir,
    ...(a.sandbox ? { sandbox: a.sandbox } : {}),
  };
}
