// The snapshot as the page reads it (the server's MonitorSnapshot, restated without Node
// types so the browser bundle compiles on its own). The task card is the server's own type,
// from a module of types only.

import type { TaskCard } from '../task-card.js';

export interface Totals {
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
  costUsd: number;
  costEstimated: boolean;
  unpriced: number;
}

export interface UsageView {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  totalTokens?: number;
  costUsd?: number;
  costEstimated?: boolean;
}

interface Base {
  at: string;
  runId: string;
  /** On a shared store: the machine of the dispatcher (`<host> pid <pid>`). */
  machine?: string;
}

/** A task event of the history. */
export type RunEventView = Base &
  (
    | {
        type: 'attempt.started';
        task: string;
        role: string;
        planLoop: number;
        attempt: string;
        target: string;
        /** Set when the attempt ran inside a sandbox. */
        sandbox?: string;
      }
    | {
        type: 'attempt.finished';
        task: string;
        role: string;
        planLoop: number;
        attempt: string;
        target: string;
        result: string;
        evidence: string[];
        durationMs?: number;
        exitCode?: number | null;
        usage?: UsageView;
      }
    | {
        type: 'target.failover';
        task: string;
        stage: string;
        from: string;
        to: string;
        class: string;
        evidence: string[];
      }
    | {
        type: 'gate.finished';
        task: string;
        planLoop: number;
        command: string[];
        exitCode: number | null;
        passed: boolean;
        detail: string;
        assertion?: string;
        output?: string[];
        /** Set for a project gate (config `gates`). */
        gate?: string;
        on?: 'task' | 'source';
      }
    | {
        type: 'review.verdict';
        task: string;
        planLoop: number;
        verdict: string;
        findings: { critical: number; moderate: number; minor: number };
      }
    | { type: 'task.plan-loop'; task: string; planLoop: number; plan: string }
    | {
        type: 'human.action';
        task: string;
        action: string;
        answer?: string;
        note?: string;
        by?: string;
        via: string;
        detail: string;
      }
    | {
        type:
          | 'task.admitted'
          | 'task.waiting'
          | 'stage.decided'
          | 'attempt.retry-scheduled'
          | 'task.blocked'
          | 'task.archived';
        task: string;
      }
  );

/** A task's card, the type the server builds it by, with the page's view of its events. */
export type TaskView = TaskCard<RunEventView>;

export interface Snapshot {
  /** Number of this snapshot; each patch names the one it applies to. */
  seq: number;
  generatedAt: string;
  workspace: string;
  dispatcher: {
    state: string;
    pid?: number;
    lastRun?: { runId: string; startedAt: string; finishedAt?: string; exitCode?: number };
  };
  counts: { running: number; waiting: number; blocked: number; done: number };
  groups: string[];
  tasks: TaskView[];
  claims: { path: string; task: string; since: string }[];
  /** Open escalations (blocked tasks waiting for `switchyard resolve`), oldest first. */
  escalations: EscalationView[];
  /** Disk the task worktrees take (the server's WorktreeDiskSummary; 0 worktrees: none). */
  worktreeDisk?: {
    worktrees: number;
    bytes: number;
    sharedBytes: number;
    cap?: number;
    text: string;
  };
  /** Run-level events (run.started/finished, control failures), oldest first. */
  runs: RunLevelView[];
  /** YAML plans by task group. */
  plans: Record<string, PlanView>;
  usage: {
    run: Totals;
    byTask: Record<string, Totals>;
    byTarget: Record<string, Totals>;
    attempts: { attempt: string; task: string; target: string; usage: UsageView }[];
  };
}

/** An open escalation (the server's EscalationEntry). */
export interface EscalationView {
  task: string;
  code: string;
  class?: string;
  stage: string;
  reason: string;
  question: string;
  since: string;
  blockedDownstream: string[];
  /** Workspace-relative failure bundle and interview request. */
  bundle: string;
  interview: string;
}

/** What changed since snapshot `base` (the server's MonitorPatch). */
export interface Patch {
  seq: number;
  base: number;
  generatedAt: string;
  set: Partial<
    Pick<
      Snapshot,
      | 'workspace'
      | 'dispatcher'
      | 'counts'
      | 'groups'
      | 'claims'
      | 'escalations'
      | 'runs'
      | 'plans'
      | 'worktreeDisk'
    >
  > & {
    usage?: Omit<Snapshot['usage'], 'byTask'>;
  };
  tasks: TaskView[];
  removed: string[];
  usageByTask: Record<string, Totals | null>;
}

/** A failover edge of a task's history. */
export type FailoverView = Extract<RunEventView, { type: 'target.failover' }>;

/** The end of a run (its `run.finished` event). */
export type RunFinishedView = Base & {
  type: 'run.finished';
  exitCode: number;
  counts: { running: number; ready: number; waiting: number; blocked: number; done: number };
  elapsedMs: number;
  blocked: { task: string; reason: string }[];
  controlFailures?: string[];
};

/** A run-level event of the snapshot. */
export type RunLevelView =
  | RunFinishedView
  | (Base & { type: 'run.started'; pid: number; tasks: number })
  | (Base & { type: 'control.failure'; code: string; message: string });

/** A YAML plan heading its task group (the server's PlanInfo). */
export interface PlanView {
  title: string;
  goal?: string;
  file: string;
  lanes: { id: string; label?: string; tasks: string[] }[];
}
