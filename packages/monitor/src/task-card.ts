// The task card: what the server builds for each task and the page shows. Types only, with no
// imports: the browser bundle imports it as well (type imports are erased, so no server code
// reaches the bundle), and the page's typecheck has no Node or server types.

/** A task's lifecycle state as the page colours it. */
export type TaskCardState = 'running' | 'waiting' | 'blocked' | 'done';

/**
 * One task of the page: its place in the DAG, its state and why, and its history. `Event` is
 * the run event of its history (the server's `RunEvent`, the page's restated view of it) and
 * `GateResult` a project gate's last result.
 */
export interface TaskCard<Event, GateResult = unknown> {
  id: string;
  group: string;
  dependsOn: string[];
  writeSet: string[];
  /** Longest dependency chain below the task inside the snapshot (its DAG column). */
  depth: number;
  state: TaskCardState;
  /** One line: what it does now or why it waits/blocks. */
  why: string;
  planLoop: number;
  /** The task's cap on plan loops (the page says "plan loop N of M"). */
  maxPlanLoops?: number;
  phase?: string;
  /** Why is in `why`. */
  waiting?: { kind: string; until?: string };
  running?: {
    role: string;
    target: string;
    attempt: string;
    since: string;
    planLoop: number;
    /** 1-based attempt number within the stage's consecutive-failure budget. */
    attemptNo: number;
    budget: number;
    supervision: string;
  };
  blocked?: { stage: string; reason: string; evidence: string[]; class?: string; since?: string };
  /** On a shared store: the machine running it, or the last one (`<host> pid <pid>`). */
  machine?: string;
  /** Events about this task, oldest first (attempts, failovers, gates, verdicts, loops). */
  history: Event[];
  /** The last result of each project gate (config `gates`) for this task. */
  gates?: GateResult[];
}
