import type { TaskState } from '@switchyard/core';
import { summarizeUsage } from '@switchyard/runner-kit';
import { type AdmissionDecision, admit } from '../admission/admit.js';
import { worktreeBytes } from '../admission/worktree-bytes.js';
import { unrecordedReason } from '../dispatcher/checks/completion-record.js';
import { INITIAL_PHASE } from '../lifecycle/index.js';
import { describeWaiting } from './describe-waiting.js';
import { dispatcherStatus, maxParallelOf } from './dispatcher-status.js';
import type {
  BlockedEntry,
  RunningEntry,
  StatusInput,
  StatusReport,
  StatusTask,
  WaitingEntry,
} from './status-types.js';
import { placeTask } from './task-standing.js';

/**
 * Builds the status report. Pure: every fact comes from `input`. A task is exactly one of
 * running (an unfinished attempt with a live process), blocked (its persisted reason),
 * done (archived complete) or waiting (with the admission rule that holds it back).
 */
export function buildStatus(input: StatusInput): StatusReport {
  const dispatcher = dispatcherStatus(input);
  const states = new Map(input.states.map((s) => [s.task, s]));
  const archived = new Set(input.archived);
  const running: RunningEntry[] = [];
  const waiting: WaitingEntry[] = [];
  const blocked: BlockedEntry[] = [];
  const liveTasks = new Set<string>();
  const pending: StatusTask[] = [];

  for (const task of input.tasks) {
    const placed = placeTask(task, states.get(task.id), input, dispatcher.state);
    if (placed.kind === 'running') {
      running.push(...placed.entries);
      liveTasks.add(task.id);
    } else if (placed.kind === 'waiting') waiting.push(placed.entry);
    else if (placed.kind === 'blocked') blocked.push(placed.entry);
    else pending.push(task);
  }

  waiting.push(
    ...admissionWaits(input, pending, {
      live: liveTasks,
      activeStages: running.length,
      blocked: new Set(blocked.map((b) => b.task)),
      dispatcherRunning: dispatcher.state === 'running',
      runRefused: input.runRefusal !== undefined,
    }),
  );
  for (const task of input.unrecorded ?? [])
    blocked.push({
      task,
      stage: 'archive',
      reason: unrecordedReason(task, `agent-task/archive/${task}`),
      evidence: [],
    });
  nameClaimWaiters(blocked, waiting);
  // A task archived on disk whose state is not marked done yet finishes on the next run.
  const done = input.archived.map((task) => ({ task, archiveDir: `agent-task/archive/${task}` }));
  waiting.push(...archivesToFinish(input, archived));
  carryPlanLoopCaps(input.tasks, [...running, ...waiting]);
  return {
    schema_version: 1,
    workspace: input.workspace,
    generatedAt: input.now.toISOString(),
    dispatcher,
    running: running.sort(byTask),
    waiting: waiting.sort(byTask),
    blocked: blocked.sort(byTask),
    done: done.sort(byTask),
    counts: {
      running: running.length,
      waiting: waiting.length,
      blocked: blocked.length,
      done: done.length,
    },
    usage: summarizeUsage(input.events, input.prices),
    escalations: [...(input.escalations ?? [])].sort((a, b) => a.since.localeCompare(b.since)),
    gates: input.states
      .flatMap((st) => (st.gates ?? []).map((g) => ({ task: st.task, ...g })))
      .sort(byTask),
    ...(input.runRefusal ? { runRefusal: input.runRefusal } : {}),
  };
}

const byTask = <T extends { task: string }>(a: T, b: T) =>
  a.task < b.task ? -1 : a.task > b.task ? 1 : 0;

/** The pending tasks' waiting lines, from what admission decides for them now. */
function admissionWaits(
  input: StatusInput,
  pending: readonly StatusTask[],
  run: {
    live: Set<string>;
    activeStages: number;
    blocked: ReadonlySet<string>;
    dispatcherRunning: boolean;
    runRefused: boolean;
  },
): WaitingEntry[] {
  const states = new Map(input.states.map((s) => [s.task, s]));
  const decisions = admissionOf(
    input,
    pending,
    run.live,
    run.activeStages,
    maxParallelOf(input.events),
  );
  const disk = input.worktreeDiskCap
    ? { bytes: worktreeBytes(input.states), cap: input.worktreeDiskCap }
    : undefined;
  return pending.map((task) =>
    describeWaiting(
      task.id,
      states.get(task.id),
      decisions.get(task.id),
      input.now,
      { dispatcherRunning: run.dispatcherRunning, runRefused: run.runRefused },
      run.blocked,
      disk,
    ),
  );
}

/** Each blocked task names the tasks waiting on the claim it keeps. */
function nameClaimWaiters(blocked: BlockedEntry[], waiting: readonly WaitingEntry[]): void {
  for (const entry of blocked) {
    const waiters = waiting
      .filter((w) => w.blockedHolders?.includes(entry.task))
      .map((w) => w.task)
      .sort();
    if (waiters.length > 0) entry.claimWaiters = waiters;
  }
}

/** Approved tasks whose folder is not archived yet (nor active): the next run moves them. */
function archivesToFinish(input: StatusInput, archived: ReadonlySet<string>): WaitingEntry[] {
  return input.states
    .filter(
      (state) =>
        state.phase === 'archive' &&
        !input.tasks.some((t) => t.id === state.task) &&
        !archived.has(state.task),
    )
    .map((state) => ({
      task: state.task,
      kind: 'archive',
      why: 'approved; the archive move finishes on the next run',
      phase: 'archive',
      planLoop: state.planLoop,
    }));
}

/** "plan loop N of M": every entry of an active task carries its cap. */
function carryPlanLoopCaps(
  tasks: readonly StatusTask[],
  entries: readonly (RunningEntry | WaitingEntry)[],
): void {
  const caps = new Map(tasks.map((t) => [t.id, t.maxPlanLoops]));
  for (const entry of entries) {
    const cap = caps.get(entry.task);
    if (cap !== undefined) entry.maxPlanLoops = cap;
  }
}

/** A task that has not started (as the scheduler's admission sees it): it would get a worktree. */
const isFresh = (task: StatusTask, state: TaskState | undefined): boolean =>
  !task.local &&
  (!state || (state.phase === INITIAL_PHASE && state.attempts.length === 0 && !state.isolation));

function admissionOf(
  input: StatusInput,
  pending: readonly StatusTask[],
  live: Set<string>,
  activeStages: number,
  maxParallel: number,
): Map<string, AdmissionDecision> {
  const blocked = new Set(input.states.filter((s) => s.blocked).map((s) => s.task));
  const states = new Map(input.states.map((s) => [s.task, s]));
  const result = admit({
    tasks: input.tasks.map((t) => ({
      id: t.id,
      writeSet: t.writeSet,
      dependsOn: t.dependsOn,
      ...(isFresh(t, states.get(t.id)) ? { fresh: true } : {}),
    })),
    archivedComplete: new Set(input.archived),
    liveAttempts: live,
    blocked,
    invalid: new Set(input.tasks.filter((t) => t.invalid).map((t) => t.id)),
    claims: input.claims,
    activeStages,
    maxParallel,
    ...(input.worktreeDiskCap
      ? { worktreeDisk: { bytes: worktreeBytes(input.states), cap: input.worktreeDiskCap } }
      : {}),
  });
  const wanted = new Set(pending.map((t) => t.id));
  return new Map(result.decisions.filter((d) => wanted.has(d.id)).map((d) => [d.id, d]));
}
