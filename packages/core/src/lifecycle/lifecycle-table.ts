/**
 * The task lifecycle, declared once. Every stage a task goes through is one row: what runs
 * it (an agent attempt, a command, the archive), which catalog decision picks its target,
 * whether it has a failure budget, takes a `max_parallel` agent slot or writes work-log rows,
 * and where each outcome leads. The state and event schemas, the work-log vocabulary, the
 * status view and the run renderer derive their stage lists from this table; the dispatcher
 * moves a task only through `transition()` (./transition.ts). Adding a stage (worktree apply,
 * source definition of done, rollback, escalation…) is a row here plus its handler in the
 * dispatcher's stage map.
 */

/** The stages, in lifecycle order. */
export const LIFECYCLE_STAGES = [
  'worker',
  'selfcheck',
  'writeset',
  'gate',
  'project-gates',
  'review',
  'redteam',
  'apply',
  'archive',
] as const;
export type LifecycleStage = (typeof LIFECYCLE_STAGES)[number];

/** A task's phase: the stage the dispatcher runs next, or `done` once it is archived. */
export const PHASES = [...LIFECYCLE_STAGES, 'done'] as const;
export type Phase = (typeof PHASES)[number];

/** The phase of a task that has never run. */
export const INITIAL_PHASE = 'worker' satisfies Phase;
/** The phase of an archived, verified task. */
export const FINAL_PHASE = 'done' satisfies Phase;

/** What a stage's outcome may be (what its handler reports to `transition`). */
export const OUTCOMES = [
  /** The stage did its job (worker finished, checklist complete, gate passed, archived). */
  'passed',
  /** An attempt failed: counted against the stage budget; failover/retry stay in the stage. */
  'failed',
  /** Self-check ended with checklist items still open: another pass of the same stage. */
  'checklist-open',
  /** The definition-of-done gate failed: back to the worker with a correction. */
  'gate-failed',
  /** The review approved the work. */
  'approved',
  /** The review requested changes with a valid next plan: plan loop N+1 starts. */
  'changes-requested',
  /** Worktree isolation: the task changed files outside its write set, git metadata, or nothing. */
  'writeset-violated',
  /** Worktree isolation: the apply could not land (conflict, refused) or was rolled back (source DoD). */
  'apply-failed',
  /** Worktree isolation: the apply waits (the user's uncommitted source changes overlap the task's files). */
  'apply-waiting',
  /** The review requested changes, all MINOR: approved, the findings kept as accepted notes. */
  'approved-with-notes',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Facts about the task a transition may depend on (guards of the table). */
export interface LifecycleFacts {
  /** The worker's target has `selfcheck_required`. */
  selfcheckRequired: boolean;
  /** The plan has a definition-of-done command. */
  hasGate: boolean;
  /** The task works in a git worktree of its own (isolation "worktree"). */
  isolated: boolean;
  /** `runner: local`: the worker stage ran a command, not an agent; no review follows. */
  localRunner: boolean;
  /** The project config declares gates (run after the task's own definition of done). */
  hasProjectGates: boolean;
  /** The task asks for a red-team review (PLAN `review: red-team` or `routing.risk`). */
  redTeam: boolean;
}
export type Fact = keyof LifecycleFacts;
export const FACTS = [
  'selfcheckRequired',
  'hasGate',
  'isolated',
  'localRunner',
  'hasProjectGates',
  'redTeam',
] as const satisfies readonly Fact[];

/** State changes a transition asks the dispatcher to perform, in order. */
export const EFFECTS = [
  /** Reset the failure counter of the stage being left. */
  'reset-failures',
  /** Count one failure against the stage's budget. */
  'count-failure',
  'reset-selfcheck-retries',
  'count-selfcheck-retry',
  'clear-correction',
  /** Keep the correction (failed gate output) for the worker's next prompt. */
  'record-correction',
  /** Forget the failed attempt the next prompt cited. */
  'clear-failover',
  /** Forget the backoff instant. */
  'clear-backoff',
  /** Plan loop N+1: counters of worker, self-check and gate start over. */
  'start-plan-loop',
] as const;
export type Effect = (typeof EFFECTS)[number];

/** Where an outcome leads: the first branch whose fact holds (no `if`: always). */
export interface Branch {
  if?: Fact;
  to: Phase;
}

/** One outcome of a stage: the ordered branches and the effects to perform. */
export interface OutcomeRow {
  next: readonly Branch[];
  effects: readonly Effect[];
}

/** How a stage runs. */
export type StageKind = 'agent' | 'command' | 'archive' | 'git';

/** One row of the lifecycle table. */
export interface StageRow {
  kind: StageKind;
  /** Human name, for status lines and messages. */
  label: string;
  /** The catalog decision whose target runs the stage (agent stages). */
  decision?: 'worker' | 'review';
  /** The stage has its own consecutive-failure budget. */
  budget: boolean;
  /** The stage takes one of the `max_parallel` agent slots while it runs. */
  agentSlot: boolean;
  /** The stage writes START/FINISH rows to the group's work log. */
  workLog: boolean;
  /** A failover-class failure may move the stage to another candidate. */
  failover: boolean;
  outcomes: Partial<Record<Outcome, OutcomeRow>>;
}

/**
 * The path of a task's work, in order: each stage with the fact that turns it on (none:
 * always). Where a stage leads once it passed is derived from it ({@link after}), so a stage
 * added to the path is one entry here.
 */
const PATH: readonly Branch[] = [
  { to: 'worker' },
  { if: 'selfcheckRequired', to: 'selfcheck' },
  { if: 'isolated', to: 'writeset' },
  { if: 'hasGate', to: 'gate' },
  { if: 'hasProjectGates', to: 'project-gates' },
  // A local command is deterministic and written by a human: nothing for a reviewer to judge.
  { if: 'localRunner', to: 'archive' },
  { to: 'review' },
  { if: 'redTeam', to: 'redteam' },
  { if: 'isolated', to: 'apply' },
  { to: 'archive' },
];

/** The branches after `stage` on the path, up to the first that always applies. */
function after(stage: LifecycleStage): readonly Branch[] {
  const from = PATH.findIndex((b) => b.to === stage) + 1;
  const end = PATH.findIndex((b, i) => i >= from && b.if === undefined);
  return PATH.slice(from, end + 1);
}
const stay = (stage: LifecycleStage, ...effects: Effect[]): OutcomeRow => ({
  next: [{ to: stage }],
  effects,
});

/** A review stage's verdicts: approval goes on along the path, changes start plan loop N+1. */
function reviewOutcomes(stage: 'review' | 'redteam'): StageRow['outcomes'] {
  const passed: OutcomeRow = {
    next: after(stage),
    effects: ['reset-failures', 'clear-failover', 'clear-backoff'],
  };
  return {
    approved: passed,
    'changes-requested': {
      next: [{ to: 'worker' }],
      effects: ['reset-failures', 'clear-failover', 'clear-backoff', 'start-plan-loop'],
    },
    // No worker round for naming and style: on along the path; complete.log lists the notes.
    'approved-with-notes': { ...passed },
    failed: stay(stage, 'count-failure'),
  };
}

/** The table. */
export const LIFECYCLE: Readonly<Record<LifecycleStage, StageRow>> = {
  worker: {
    kind: 'agent',
    label: 'worker',
    decision: 'worker',
    budget: true,
    agentSlot: true,
    workLog: true,
    failover: true,
    outcomes: {
      passed: {
        next: after('worker'),
        effects: [
          'reset-failures',
          'reset-selfcheck-retries',
          'clear-correction',
          'clear-failover',
          'clear-backoff',
        ],
      },
      failed: stay('worker', 'count-failure'),
    },
  },
  selfcheck: {
    kind: 'agent',
    label: 'self-check',
    decision: 'worker',
    budget: true,
    agentSlot: true,
    workLog: true,
    // Self-check resumes the worker's context: a provider fault never moves its target.
    failover: false,
    outcomes: {
      passed: {
        next: after('selfcheck'),
        effects: ['reset-failures', 'reset-selfcheck-retries'],
      },
      'checklist-open': stay('selfcheck', 'reset-failures', 'count-selfcheck-retry'),
      failed: stay('selfcheck', 'count-failure'),
    },
  },
  gate: {
    kind: 'command',
    label: 'definition-of-done gate',
    budget: true,
    agentSlot: false,
    workLog: true,
    failover: false,
    outcomes: {
      passed: {
        next: after('gate'),
        effects: ['reset-failures', 'clear-correction'],
      },
      'gate-failed': { next: [{ to: 'worker' }], effects: ['count-failure', 'record-correction'] },
    },
  },
  // The project's own gates (config `gates`, `on: "task"`), after the task's definition of
  // done; a failing one goes back to the worker as a correction naming it.
  'project-gates': {
    kind: 'command',
    label: 'project gates',
    budget: true,
    agentSlot: false,
    workLog: true,
    failover: false,
    outcomes: {
      passed: {
        next: after('project-gates'),
        effects: ['reset-failures', 'clear-correction'],
      },
      'gate-failed': { next: [{ to: 'worker' }], effects: ['count-failure', 'record-correction'] },
    },
  },
  review: {
    kind: 'agent',
    label: 'review',
    decision: 'review',
    budget: true,
    agentSlot: true,
    workLog: true,
    failover: true,
    outcomes: reviewOutcomes('review'),
  },
  // `review: red-team`: a second, adversarial review after the normal one approved, by a
  // review candidate of another agent family than the worker's. Both must approve; its
  // CHANGES_REQUESTED starts plan loop N+1 like a normal review's.
  redteam: {
    kind: 'agent',
    label: 'red-team review',
    decision: 'review',
    budget: true,
    agentSlot: true,
    workLog: true,
    failover: true,
    outcomes: reviewOutcomes('redteam'),
  },
  // Worktree isolation: the worker's diff against its base, checked against the write set.
  // Its failures count in `failures.writeset` (reset when it passes), not the worker's.
  writeset: {
    kind: 'git',
    label: 'write-set check',
    budget: false,
    agentSlot: false,
    // It judges the agent's work: one START/FINISH pair per check (dispatcher/git-stage-rows.ts).
    workLog: true,
    failover: false,
    outcomes: {
      passed: {
        next: after('writeset'),
        effects: ['reset-failures'],
      },
      'writeset-violated': {
        next: [{ to: 'worker' }],
        effects: ['count-failure', 'record-correction'],
      },
    },
  },
  // Worktree isolation: commit, replay onto the source tip (serialized per repository), the
  // definition of done on the source, rollback of exactly that commit when it fails.
  apply: {
    kind: 'git',
    label: 'apply to source',
    budget: false,
    agentSlot: false,
    // It judges the agent's work: one START/FINISH pair per check (dispatcher/git-stage-rows.ts).
    workLog: true,
    failover: false,
    outcomes: {
      passed: { next: after('apply'), effects: ['reset-failures', 'clear-correction'] },
      'apply-failed': { next: [{ to: 'worker' }], effects: ['count-failure', 'record-correction'] },
      'apply-waiting': stay('apply'),
    },
  },
  archive: {
    kind: 'archive',
    label: 'archive',
    budget: false,
    agentSlot: false,
    workLog: false,
    failover: false,
    outcomes: {
      // The archive handler has moved the folder and released the claim by then.
      passed: { next: [{ to: 'done' }], effects: ['clear-backoff'] },
    },
  },
};

/** The stages whose row passes `test`, in lifecycle order (a non-empty tuple for zod enums). */
const stagesWhere = <S extends LifecycleStage>(test: (row: StageRow) => boolean) =>
  LIFECYCLE_STAGES.filter((s) => test(LIFECYCLE[s])) as unknown as readonly [S, ...S[]];

/** Stages run by an agent attempt: the values of an attempt's role (`SWITCHYARD_ROLE`). */
export const ATTEMPT_ROLES = stagesWhere<AttemptRoleName>((r) => r.kind === 'agent');
export type AttemptRoleName = 'worker' | 'selfcheck' | 'review' | 'redteam';
/** Stages that decide a catalog target of their own (self-check runs on the worker's). */
export const DECISION_STAGES = ['worker', 'review'] as const satisfies readonly LifecycleStage[];
export type DecisionStageName = (typeof DECISION_STAGES)[number];
/** Stages with a consecutive-failure budget (the keys of a task state's `failures`). */
export const BUDGET_STAGES = stagesWhere<BudgetStageName>((r) => r.budget);
export type BudgetStageName =
  | 'worker'
  | 'selfcheck'
  | 'gate'
  | 'project-gates'
  | 'review'
  | 'redteam';
/** Stages that write work-log rows (the log's role column). */
export const WORK_LOG_ROLES = stagesWhere<WorkLogStageName>((r) => r.workLog);
export type WorkLogStageName = BudgetStageName | 'writeset' | 'apply';
/** The log's role column: a stage, or `setup` (a new worktree's set-up, before its first
 * stage: not a stage of the task, it runs again whenever the worktree is created anew). */
export type WorkLogRoleName = WorkLogStageName | 'setup';
/** Sources of a correction shown to the next worker attempt. */
export const CORRECTION_SOURCES = [
  'gate',
  'project-gates',
  'selfcheck',
  'review',
  'writeset',
  'apply',
] as const satisfies readonly LifecycleStage[];

/** The row of a phase, or undefined for `done`. */
export function stageRow(phase: Phase): StageRow | undefined {
  return phase === FINAL_PHASE ? undefined : LIFECYCLE[phase];
}

/** Human label of a phase (`self-check`, `definition-of-done gate`, `done`). */
export function phaseLabel(phase: string): string {
  return (LIFECYCLE as Record<string, StageRow | undefined>)[phase]?.label ?? phase;
}

/** True when running this phase takes a `max_parallel` agent slot. */
export function takesAgentSlot(phase: Phase): boolean {
  return stageRow(phase)?.agentSlot ?? false;
}
