import type { ProjectGateResult, RunEvent, TaskState } from '@switchyard/core';
import { STAGE_FAILURE_BUDGET, type StatusReport } from '@switchyard/engine';
import type { TaskCard, TaskCardState } from './task-card.js';

/** A task's lifecycle state as the page colours it. */
export type MonitorTaskState = TaskCardState;

/** One task of the page, as the server builds it (the card type the page reads too). */
export type MonitorTask = TaskCard<RunEvent, ProjectGateResult>;

/** What a task's plan says, for its card: its edges, write set and plan-loop cap. */
export interface TaskPlanFacts {
  dependsOn: string[];
  writeSet: string[];
  maxPlanLoops?: number;
}

/** What the cards are built from. */
export interface CardFacts {
  report: StatusReport;
  /** Stored states by task. */
  states: ReadonlyMap<string, TaskState>;
  /** Plans of active and archived tasks by task. */
  plans: ReadonlyMap<string, TaskPlanFacts>;
  /** Events about each task, oldest first. */
  history: ReadonlyMap<string, readonly RunEvent[]>;
}

/** What a card says of its state (the rest comes from the plan, the state and the events). */
type CardState = Pick<MonitorTask, 'state' | 'why'> &
  Partial<Pick<MonitorTask, 'phase' | 'waiting' | 'running' | 'blocked'>>;

/**
 * The page's task cards from a status report: running, waiting, blocked and done, each with its
 * plan's facts and history, in the order the report lists them (depths not yet assigned).
 */
export function taskCards(facts: CardFacts): MonitorTask[] {
  const { report } = facts;
  const tasks: MonitorTask[] = [];
  const add = (id: string, card: CardState) => {
    tasks.push({
      id,
      group: id.includes('/') ? id.slice(0, id.indexOf('/')) : id,
      depth: 0,
      // a copy: the reader's list grows after this snapshot was taken
      history: facts.history.get(id)?.slice() ?? [],
      ...planFields(facts, id),
      ...card,
    });
  };
  for (const r of report.running) {
    if (tasks.some((t) => t.id === r.task)) continue;
    add(r.task, runningCard(r, facts.states.get(r.task)));
  }
  for (const w of report.waiting)
    add(w.task, {
      state: 'waiting',
      why: w.why,
      phase: w.phase,
      waiting: { kind: w.kind, ...(w.until ? { until: w.until } : {}) },
    });
  for (const b of report.blocked) add(b.task, blockedCard(b));
  for (const d of report.done) add(d.task, { state: 'done', why: `archived in ${d.archiveDir}` });
  return tasks;
}

/** The fields every card takes from the task's plan and stored state. */
function planFields(facts: CardFacts, id: string) {
  const plan = facts.plans.get(id);
  const state = facts.states.get(id);
  return {
    dependsOn: plan?.dependsOn ?? [],
    writeSet: plan?.writeSet ?? [],
    planLoop: state?.planLoop ?? 1,
    ...(plan?.maxPlanLoops !== undefined ? { maxPlanLoops: plan.maxPlanLoops } : {}),
    ...(state?.gates?.length ? { gates: state.gates } : {}),
  };
}

function runningCard(r: StatusReport['running'][number], state: TaskState | undefined): CardState {
  const attemptNo = attemptNumber(state, r.role);
  return {
    state: 'running',
    // A new worktree's set-up runs no agent: the card says what it runs.
    why: r.activity ?? `${r.role} on ${r.target} (attempt ${attemptNo} of ${STAGE_FAILURE_BUDGET})`,
    ...(state ? { phase: state.phase } : {}),
    running: {
      role: r.role,
      target: r.target,
      attempt: r.attempt,
      since: r.since,
      planLoop: r.planLoop,
      attemptNo,
      budget: STAGE_FAILURE_BUDGET,
      supervision: r.supervision,
    },
  };
}

function blockedCard(b: StatusReport['blocked'][number]): CardState {
  return {
    state: 'blocked',
    why: b.reason,
    blocked: {
      stage: b.stage,
      reason: b.reason,
      evidence: b.evidence,
      ...(b.class ? { class: b.class } : {}),
      ...(b.since ? { since: b.since } : {}),
    },
  };
}

/** The running stage's attempt number: consecutive failures of that stage so far, plus one. */
function attemptNumber(state: TaskState | undefined, role: string): number {
  if (!state) return 1;
  const failures = state.failures as Record<string, number>;
  return (failures[role] ?? 0) + 1;
}

/** Longest path to a root through dependencies present in the snapshot (cycles cut). */
export function assignDepths(tasks: MonitorTask[]): void {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const task = byId.get(id);
    if (!task || visiting.has(id)) return -1;
    visiting.add(id);
    let d = 0;
    for (const dep of task.dependsOn) d = Math.max(d, depth(dep) + 1);
    visiting.delete(id);
    memo.set(id, d);
    return d;
  };
  for (const t of tasks) t.depth = depth(t.id);
}
