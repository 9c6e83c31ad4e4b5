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
  'fixup',
  'promise',
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
  /** The task changed files outside its write set, git metadata, or nothing. */
  'writeset-violated',
  /** Worktree isolation: the apply could not land (conflict, refused) or was rolled back (source DoD). */
  'apply-failed',
  /** Worktree isolation: the apply waits (the user's uncommitted source changes overlap the task's files). */
  'apply-waiting',
  /** The review requested changes, all MINOR: approved, the findings kept as accepted notes. */
  'approved-with-notes',
  /** Part of the completion promise is unmet: back to the worker with a correction naming it. */
  'promise-unmet',
  /** An agent attempt changed the source checkout outside its worktree (or its write set):
   * put back, and the worker goes again with a correction naming the files. */
  'source-changed',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Facts about the task a transition may depend on (guards of the table). */
export interface LifecycleFacts {
  /** The worker's target has `selfcheck_required`. */
  selfcheckRequired: boolean;
  /** The gate stage runs: the plan has a definition-of-done command, or an agent made the
   * change (its added lines are checked for stubs and, under `tests: required`, tests). */
  hasGate: boolean;
  /** The task works in a git worktree of its own (isolation "worktree"). */
  isolated: boolean;
  /** The worker's writes are checked against the write set: its worktree's diff, or snapshots
   * of the shared workspace (an agent worker; a `runner: local` command is not checked). */
  writesChecked: boolean;
  /** `runner: local`: the worker stage ran a command, not an agent; no review follows. */
  localRunner: boolean;
  /** The project config declares gates (run after the task's own definition of done). */
  hasProjectGates: boolean;
  /** The task asks for a red-team review (PLAN `review: red-team` or `routing.risk`). */
  redTeam: boolean;
  /** The approving reviews of this plan loop left MINOR findings and the project names a fixup
   * target (config `review.fixupTarget`): the fixup stage applies them. */
  minorNotes: boolean;
  /** The fixup stage applied this loop's MINOR findings: its change is verified again (write
   * set, gates), but the reviews that asked for it stand. */
  fixedUp: boolean;
}
export type Fact = keyof LifecycleFacts;
export const FACTS = [
  'selfcheckRequired',
  'hasGate',
  'isolated',
  'writesChecked',
  'localRunner',
  'hasProjectGates',
  'redTeam',
  'minorNotes',
  'fixedUp',
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
  /** Plan loop N+1: the failure counters of the stages marked `planLoopReset` start over. */
  'start-plan-loop',
  /** The task's files changed (worker, self-check, fixup): checks passed before no longer hold. */
  'mark-work',
  /** The stage being left verified the work as it is now (the completion promise reads it). */
  'mark-verified',
  /** The fixup stage applied this loop's MINOR findings (the reviews judged the work before). */
  'mark-fixed-up',
  /** A worker round: a fixup of this loop no longer stands in for a review. */
  'clear-fixup',
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

/** How a stage runs (`check`: the dispatcher judges its own records). */
export type StageKind = 'agent' | 'command' | 'archive' | 'git' | 'check';

/** One row of the lifecycle table. */
export interface StageRow {
  kind: StageKind;
  /** Human name, for status lines and messages. */
  label: string;
  /** The catalog decision whose target runs the stage (agent stages; the fixup stage's target
   * is named by the project config). */
  decision?: 'worker' | 'review';
  /** Where the stage's catalog decision is kept in a task state's `decisions` (agent stages;
   * the self-check runs on the worker's). */
  decisionKey?: 'worker' | 'review' | 'redteam' | 'fixup';
  /** The prompt template the stage's attempt is built from (agent stages). */
  prompt?: 'worker' | 'selfcheck' | 'review' | 'fixup';
  /** The stage has its own consecutive-failure budget. */
  budget: boolean;
  /** The stage keeps a consecutive-failure counter in a task state's `failures` (a stage
   * without a budget counts its failures too: the write set, the promise and the apply). */
  failureCounter: boolean;
  /** A new plan loop (a review asked for changes) starts the stage's failure counter over: the
   * stages that make and check the change before the review. The checks without a budget of
   * their own (write set, promise, apply) count every failure until they pass, across plan
   * loops; the reviews and the fixup reset theirs when they end. */
  planLoopReset: boolean;
  /** A quota error that names its reset parks the stage, uncharged, until the earliest reset
   * of its decision's candidates (config `park`). The self-check never does: it runs on the
   * worker's decision and resumes the worker's context, so it must not move that target. */
  quotaPark: boolean;
  /** The review file an attempt of the stage writes, `<n>` being the plan loop (review stages). */
  reviewFile?: `CODE_REVIEW-<n>${string}.md`;
  /** A failure of the stage reaches the worker's next prompt as a correction of this source. */
  correctionSource: boolean;
  /** Under worktree isolation the stage runs in the task's worktree: it is created (or
   * re-attached) before the stage runs. After the apply it is only cleaned up. */
  worktree: boolean;
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
  { if: 'writesChecked', to: 'writeset' },
  { if: 'hasGate', to: 'gate' },
  { if: 'hasProjectGates', to: 'project-gates' },
  // A local command is deterministic and written by a human: nothing for a reviewer to judge.
  { if: 'localRunner', to: 'promise' },
  // A fixup's change, verified again above, keeps the reviews that asked for it.
  { if: 'fixedUp', to: 'promise' },
  { to: 'review' },
  { if: 'redTeam', to: 'redteam' },
  { if: 'minorNotes', to: 'fixup' },
  // Nothing lands before the completion promise holds.
  { to: 'promise' },
  { if: 'isolated', to: 'apply' },
  { to: 'archive' },
];

/** The branches after `stage` on the path (its last place there), up to the first that always applies. */
function after(stage: LifecycleStage): readonly Branch[] {
  const from = PATH.findLastIndex((b) => b.to === stage) + 1;
  const end = PATH.findIndex((b, i) => i >= from && b.if === undefined);
  return PATH.slice(from, end + 1);
}
/** A worker's (or self-check's) change is always reviewed: no shortcut past the reviews. */
const reviewed = (branches: readonly Branch[]) => branches.filter((b) => b.if !== 'fixedUp');
const stay = (stage: LifecycleStage, ...effects: Effect[]): OutcomeRow => ({
  next: [{ to: stage }],
  effects,
});

/** A review stage's verdicts: approval goes on along the path, changes start plan loop N+1. */
function reviewOutcomes(stage: 'review' | 'redteam'): StageRow['outcomes'] {
  const passed: OutcomeRow = {
    next: after(stage),
    effects: ['reset-failures', 'clear-failover', 'clear-backoff', 'mark-verified'],
  };
  return {
    approved: passed,
    'changes-requested': {
      next: [{ to: 'worker' }],
      effects: ['reset-failures', 'clear-failover', 'clear-backoff', 'start-plan-loop'],
    },
    // No worker round for naming and style: on along the path (to the fixup stage when the
    // project names a fixup target); complete.log lists the notes.
    'approved-with-notes': { ...passed },
    failed: stay(stage, 'count-failure'),
  };
}

/** The table, its literal columns kept for the derived types below. */
const TABLE = {
  worker: {
    kind: 'agent',
    label: 'worker',
    decision: 'worker',
    decisionKey: 'worker',
    prompt: 'worker',
    budget: true,
    failureCounter: true,
    planLoopReset: true,
    quotaPark: true,
    correctionSource: false,
    worktree: true,
    agentSlot: true,
    workLog: true,
    failover: true,
    outcomes: {
      passed: {
        next: reviewed(after('worker')),
        effects: [
          'reset-failures',
          'reset-selfcheck-retries',
          'clear-correction',
          'clear-failover',
          'clear-backoff',
          'mark-work',
          'clear-fixup',
        ],
      },
      failed: stay('worker', 'count-failure'),
      'source-changed': {
        next: [{ to: 'worker' }],
        effects: ['count-failure', 'record-correction'],
      },
    },
  },
  selfcheck: {
    kind: 'agent',
    label: 'self-check',
    decision: 'worker',
    decisionKey: 'worker',
    prompt: 'selfcheck',
    budget: true,
    failureCounter: true,
    planLoopReset: true,
    quotaPark: false,
    correctionSource: true,
    worktree: true,
    agentSlot: true,
    workLog: true,
    // Self-check resumes the worker's context: a provider fault never moves its target.
    failover: false,
    outcomes: {
      passed: {
        next: reviewed(after('selfcheck')),
        effects: ['reset-failures', 'reset-selfcheck-retries', 'mark-work', 'mark-verified'],
      },
      'checklist-open': stay('selfcheck', 'reset-failures', 'count-selfcheck-retry'),
      failed: stay('selfcheck', 'count-failure'),
      'source-changed': {
        next: [{ to: 'worker' }],
        effects: ['count-failure', 'record-correction'],
      },
    },
  },
  gate: {
    kind: 'command',
    label: 'definition-of-done gate',
    budget: true,
    failureCounter: true,
    planLoopReset: true,
    quotaPark: false,
    correctionSource: true,
    worktree: true,
    agentSlot: false,
    workLog: true,
    failover: false,
    outcomes: {
      passed: {
        next: after('gate'),
        effects: ['reset-failures', 'clear-correction', 'mark-verified'],
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
    failureCounter: true,
    planLoopReset: true,
    quotaPark: false,
    correctionSource: true,
    worktree: true,
    agentSlot: false,
    workLog: true,
    failover: false,
    outcomes: {
      passed: {
        next: after('project-gates'),
        effects: ['reset-failures', 'clear-correction', 'mark-verified'],
      },
      'gate-failed': { next: [{ to: 'worker' }], effects: ['count-failure', 'record-correction'] },
    },
  },
  review: {
    kind: 'agent',
    label: 'review',
    decision: 'review',
    decisionKey: 'review',
    prompt: 'review',
    budget: true,
    failureCounter: true,
    planLoopReset: false,
    quotaPark: true,
    reviewFile: 'CODE_REVIEW-<n>.md',
    correctionSource: true,
    worktree: true,
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
    decisionKey: 'redteam',
    prompt: 'review',
    budget: true,
    failureCounter: true,
    planLoopReset: false,
    quotaPark: true,
    reviewFile: 'CODE_REVIEW-<n>.red-team.md',
    correctionSource: false,
    worktree: true,
    agentSlot: true,
    workLog: true,
    failover: true,
    outcomes: reviewOutcomes('redteam'),
  },
  // The worker's changes checked against the write set: under worktree isolation its diff
  // against its base, in the shared workspace the files changed since a snapshot taken before
  // it. Its failures count in `failures.writeset` (reset when it passes), not the worker's.
  writeset: {
    kind: 'git',
    label: 'write-set check',
    budget: false,
    failureCounter: true,
    planLoopReset: false,
    quotaPark: false,
    correctionSource: true,
    worktree: true,
    agentSlot: false,
    // It judges the agent's work: one START/FINISH pair per check (dispatcher/git-stage-rows.ts).
    workLog: true,
    failover: false,
    outcomes: {
      passed: {
        next: after('writeset'),
        effects: ['reset-failures', 'mark-verified'],
      },
      'writeset-violated': {
        next: [{ to: 'worker' }],
        effects: ['count-failure', 'record-correction'],
      },
    },
  },
  // `review.fixupTarget` in the project config: the approving reviews' MINOR findings are
  // applied by that target in the task's working tree, without a worker round; the change is
  // then verified again (write set, gates) and goes on to the completion promise.
  fixup: {
    kind: 'agent',
    label: 'fixup',
    decisionKey: 'fixup',
    prompt: 'fixup',
    budget: true,
    failureCounter: true,
    planLoopReset: false,
    quotaPark: true,
    correctionSource: false,
    worktree: true,
    agentSlot: true,
    workLog: true,
    // One target, named by the config: nothing to fail over to (a quota error waits for its reset).
    failover: false,
    outcomes: {
      passed: {
        // The checks of a change again (write set, gates), then the promise: no review.
        next: [
          ...after('selfcheck').filter((b) => b.if !== undefined && b.to !== 'promise'),
          { to: 'promise' },
        ],
        effects: [
          'reset-failures',
          'clear-failover',
          'clear-backoff',
          'mark-fixed-up',
          'mark-work',
        ],
      },
      failed: stay('fixup', 'count-failure'),
    },
  },
  // The completion promise, before anything lands: what the dispatcher verified of the work as
  // it is now (definition of done and gates passed, reviews approved, a required self-check
  // accepted). An unmet part goes back to the worker as a correction naming it.
  promise: {
    kind: 'check',
    label: 'completion promise',
    budget: false,
    failureCounter: true,
    planLoopReset: false,
    quotaPark: false,
    correctionSource: true,
    worktree: false,
    agentSlot: false,
    workLog: false,
    failover: false,
    outcomes: {
      passed: { next: after('promise'), effects: ['reset-failures'] },
      'promise-unmet': {
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
    failureCounter: true,
    planLoopReset: false,
    quotaPark: false,
    correctionSource: true,
    worktree: true,
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
    failureCounter: false,
    planLoopReset: false,
    quotaPark: false,
    correctionSource: false,
    worktree: false,
    agentSlot: false,
    workLog: false,
    failover: false,
    outcomes: {
      // The archive handler has moved the folder and released the claim by then.
      passed: { next: [{ to: 'done' }], effects: ['clear-backoff'] },
    },
  },
} as const satisfies Record<LifecycleStage, StageRow>;

/** The table. */
export const LIFECYCLE: Readonly<Record<LifecycleStage, StageRow>> = TABLE;

/** The stages whose row has `value` in `column` (a type derived from the table). */
type StagesWhere<K extends keyof StageRow, V> = {
  [S in LifecycleStage]: (typeof TABLE)[S] extends Record<K, V> ? S : never;
}[LifecycleStage];

/** The stages whose row passes `test`, in lifecycle order (a non-empty tuple for zod enums). */
const stagesWhere = <S extends LifecycleStage>(test: (row: StageRow) => boolean) =>
  LIFECYCLE_STAGES.filter((s) => test(LIFECYCLE[s])) as unknown as readonly [S, ...S[]];
/** The distinct values of a column, in lifecycle order. */
const columnValues = <V extends string>(value: (row: StageRow) => V | undefined) =>
  [...new Set(LIFECYCLE_STAGES.flatMap((s) => value(LIFECYCLE[s]) ?? []))] as unknown as readonly [
    V,
    ...V[],
  ];

/** Stages run by an agent attempt: the values of an attempt's role (`SWITCHYARD_ROLE`). */
export const ATTEMPT_ROLES = stagesWhere<AttemptRoleName>((r) => r.kind === 'agent');
export type AttemptRoleName = StagesWhere<'kind', 'agent'>;
/** Catalog decisions stages run on (self-check runs on the worker's, the red-team review on a
 * review candidate): the catalog's route kinds. */
export const DECISION_STAGES = columnValues<DecisionStageName>((r) => r.decision);
export type DecisionStageName = NonNullable<StageRow['decision']>;
/** Where stages keep their decision: the keys of a task state's `decisions`. */
export const DECISION_KEYS = columnValues<DecisionKeyName>((r) => r.decisionKey);
export type DecisionKeyName = NonNullable<StageRow['decisionKey']>;
/** Stages with a consecutive-failure budget. */
export const BUDGET_STAGES = stagesWhere<BudgetStageName>((r) => r.budget);
export type BudgetStageName = StagesWhere<'budget', true>;
/** Stages with a consecutive-failure counter: the keys of a task state's `failures`. */
export const FAILURE_COUNTERS = stagesWhere<FailureCounterName>((r) => r.failureCounter);
export type FailureCounterName = StagesWhere<'failureCounter', true>;
/** Stages that write work-log rows (the log's role column). */
export const WORK_LOG_ROLES = stagesWhere<WorkLogStageName>((r) => r.workLog);
export type WorkLogStageName = StagesWhere<'workLog', true>;
/** The log's role column: a stage, or `setup` (a new worktree's set-up, before its first
 * stage: not a stage of the task, it runs again whenever the worktree is created anew). */
export type WorkLogRoleName = WorkLogStageName | 'setup';
/** Sources of a correction shown to the next worker attempt. */
export const CORRECTION_SOURCES = stagesWhere<CorrectionSourceName>((r) => r.correctionSource);
export type CorrectionSourceName = StagesWhere<'correctionSource', true>;
/** The checks of the work after an agent changed it (commands, git checks, the promise): a
 * failure sends the task back to the worker with a correction. */
export type CheckStageName = StagesWhere<'kind', 'command' | 'git' | 'check'>;
/** Stages that run in the task's worktree under worktree isolation. */
export const WORKTREE_STAGES = stagesWhere<WorktreeStageName>((r) => r.worktree);
export type WorktreeStageName = StagesWhere<'worktree', true>;
/** Stages whose failure counter a new plan loop starts over. */
export const PLAN_LOOP_RESETS = stagesWhere<PlanLoopResetName>((r) => r.planLoopReset);
export type PlanLoopResetName = StagesWhere<'planLoopReset', true>;
/** Stages whose attempts write a review file (the normal review and the red-team one). */
export type ReviewStageName = StagesWhere<'reviewFile', string>;

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

/** Where the decision of an attempt's stage is kept (the self-check runs on the worker's). */
export function decisionKeyOf(role: AttemptRoleName): DecisionKeyName {
  return LIFECYCLE[role].decisionKey!;
}

/** The prompt template an attempt's stage is built from (the red-team review: the review's). */
export function promptTemplateOf(role: AttemptRoleName): NonNullable<StageRow['prompt']> {
  return LIFECYCLE[role].prompt!;
}

/** True when a quota error that names its reset parks `stage` instead of charging it. */
export function parksOnQuota(stage: LifecycleStage): boolean {
  return LIFECYCLE[stage].quotaPark;
}

/** The review file an attempt of `stage` writes in plan loop `loop` (none: not a review stage). */
export function reviewFileOf(stage: ReviewStageName, loop: number): string;
export function reviewFileOf(stage: Phase, loop: number): string | undefined;
export function reviewFileOf(stage: Phase, loop: number): string | undefined {
  return stageRow(stage)?.reviewFile?.replace('<n>', String(loop));
}

/** The outcome that sends a task from `stage` back to the worker with a correction. */
export function backToWorkerOutcome(stage: LifecycleStage): Outcome | undefined {
  const outcomes = LIFECYCLE[stage].outcomes;
  return OUTCOMES.find((o) => {
    const row = outcomes[o];
    return (
      row?.next.length === 1 &&
      row.next[0]!.to === 'worker' &&
      row.effects.includes('record-correction')
    );
  });
}
