import type { PriceTable } from '@switchyard/config';
import type { ProjectGateResult, RunEvent, TaskState } from '@switchyard/core';
import type { UsageSummary } from '@switchyard/runner-kit';
import type { EscalationEntry, LockHolder } from '@switchyard/store-fs';
import type { RunRefusal } from '../dispatcher/run-refusal.js';

/** What `switchyard status` reports: a snapshot built from persisted state, never from a
 * running dispatcher's memory, so it reads the same during a run, after it and after a crash. */

/** Whether a dispatcher works on the workspace now. */
export type DispatcherState =
  /** The lock is held by a live process. */
  | 'running'
  /** The last run finished (or none ever ran). */
  | 'stopped'
  /** The last run never finished: its process is gone (SIGKILL, power loss, OOM…). */
  | 'crashed'
  /** No run ever started on the workspace. */
  | 'never-run';

/** The dispatcher part of the report. */
export interface DispatcherStatus {
  state: DispatcherState;
  /** Holder of the workspace lock (running), or the PID of the last run. */
  pid?: number;
  host?: string;
  /** When the running dispatcher took the lock. */
  since?: string;
  lastRun?: {
    runId: string;
    startedAt: string;
    finishedAt?: string;
    exitCode?: number;
  };
}

/** A stage attempt that has a process (or had one that nobody has judged yet). */
export interface RunningEntry {
  task: string;
  role: string;
  planLoop: number;
  attempt: string;
  target: string;
  /** The task's cap on plan loops (plan loop `planLoop` of `maxPlanLoops`). */
  maxPlanLoops?: number;
  pid?: number;
  /** When the attempt started (ISO 8601). */
  since: string;
  /** `watched`: a live dispatcher awaits it; `orphaned`: alive, no dispatcher (the next run
   * re-attaches); `starting`: recorded, process not seen yet. */
  supervision: 'watched' | 'orphaned' | 'starting';
  attemptDir: string;
  /** What it does when it is no agent attempt: `setting up its worktree: <command> (1 of 2)`
   * (role `setup`, config `isolation.setup`). */
  activity?: string;
  /** Set when the attempt runs inside a sandbox (`bwrap`: bubblewrap; the pid is bwrap's). */
  sandbox?: 'bwrap';
}

/** Why a task that is neither running, blocked nor done does not run now. */
export type WaitingKind =
  | 'dependencies'
  | 'claim'
  | 'slot'
  | 'ready'
  | 'backoff'
  /** Every candidate of the stage waits for a known quota reset (`until`). */
  | 'parked'
  | 'dependency-blocked'
  | 'interrupted'
  | 'archive'
  | 'out-of-scope'
  /** Worktree isolation: the apply waits for the user's uncommitted source changes. */
  | 'apply'
  /** Worktree isolation: the worktrees take their disk cap (`isolation.maxDiskBytes`). */
  | 'disk';

export interface WaitingEntry {
  task: string;
  kind: WaitingKind;
  /** One line a human can act on. */
  why: string;
  /** The next stage the task runs. */
  phase: string;
  planLoop: number;
  /** The task's cap on plan loops (plan loop `planLoop` of `maxPlanLoops`). */
  maxPlanLoops?: number;
  /** Backoff or cooldown end (ISO 8601), for `backoff`. */
  until?: string;
  /** `parked`: what is left of the stage's park budget once this park ends (config `park`). */
  parkBudget?: { parksLeft: number; waitLeftMs: number };
  /** `claim`: the holders of the colliding claims that are blocked tasks (a shared workspace
   * keeps a blocked task's claim). */
  blockedHolders?: string[];
}

export interface BlockedEntry {
  task: string;
  stage: string;
  reason: string;
  evidence: string[];
  since?: string;
  class?: string;
  /** Set when a changed catalog invalidated a persisted decision. */
  catalog?: { old: string; new: string };
  /** Tasks waiting on the claim this blocked task keeps (a shared workspace). */
  claimWaiters?: string[];
}

export interface DoneEntry {
  task: string;
  /** Workspace-relative archive folder. */
  archiveDir: string;
}

/** The whole report (`switchyard status --json` prints it). */
export interface StatusReport {
  schema_version: 1;
  workspace: string;
  generatedAt: string;
  dispatcher: DispatcherStatus;
  running: RunningEntry[];
  waiting: WaitingEntry[];
  blocked: BlockedEntry[];
  done: DoneEntry[];
  counts: { running: number; waiting: number; blocked: number; done: number };
  /** Tokens and cost every attempt in the event log reported, per run/task/target. */
  usage: UsageSummary;
  /** Blocked tasks waiting for a human's answer (`switchyard resolve`), oldest first. */
  escalations: EscalationEntry[];
  /** The last result of each project gate (config `gates`) per task, by task then gate. */
  gates: ProjectGateEntry[];
  /** Set when the next `switchyard run` (no `--task-group`) would refuse before anything
   * starts (exit 2): the same problems, by the same rule, as the run's `SY_PLAN_INVALID`. */
  runRefusal?: RunRefusal;
}

/** One project gate's last result for one task. */
export interface ProjectGateEntry extends ProjectGateResult {
  task: string;
}

/** An active (not archived) task as status needs it. */
export interface StatusTask {
  id: string;
  dependsOn: string[];
  writeSet: string[];
  /** First error of an invalid plan; undefined when the plan is valid. */
  invalid?: string;
  /** The task's cap on plan loops (status says "loop N of M"). */
  maxPlanLoops?: number;
  /** `runner: local`: it runs in the source workspace and never gets a worktree. */
  local?: boolean;
}

/** Everything the report is built from; gathered by {@link gatherStatus} (or a test). */
export interface StatusInput {
  workspace: string;
  now: Date;
  tasks: StatusTask[];
  /** Ids of tasks archived with `complete.log` and recorded done by the dispatcher. */
  archived: string[];
  /** Ids of archive entries with `complete.log` the dispatcher has no record of: not done. */
  unrecorded?: string[];
  states: TaskState[];
  /** Held claims: path -> task. */
  claims: ReadonlyMap<string, string>;
  /** Persisted run events (events.jsonl), oldest first. */
  events: readonly RunEvent[];
  /** The lock file's holder and whether that process still lives. */
  lock?: { holder: LockHolder; alive: boolean };
  /** Live PID of each unfinished attempt (absent = no process found). */
  liveAttempts: ReadonlyMap<string, number>;
  /** Price table (target id -> USD per million tokens) for token-only usage reports. */
  prices?: PriceTable;
  /** Open escalations (see the escalation module); none when absent. */
  escalations?: EscalationEntry[];
  /** Config `isolation.maxDiskBytes`: fresh tasks wait while the worktrees take this much. */
  worktreeDiskCap?: number;
  /** What makes the next run refuse before anything starts; none when it can start. */
  runRefusal?: RunRefusal;
}
