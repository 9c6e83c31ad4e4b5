import {
  type AttemptRoleName,
  type DecisionKeyName,
  FINAL_PHASE,
  type LifecycleStage,
  type Phase,
  STAGE_CONTRACT,
  type StageContractRow,
  type StagesWhere,
  stagesWhere,
} from '@switchyard/core/lifecycle';

/**
 * The task lifecycle, declared once. Every stage a task goes through is one row: what runs
 * it (an agent attempt, a command, the archive), which catalog decision picks its target,
 * whether it has a failure budget, takes a `max_parallel` agent slot or writes work-log rows,
 * and where each outcome leads. The stages and the columns the persisted formats derive from
 * (kind, decision, decision key, failure counter, correction source, work log, review file)
 * are core's vocabulary (`STAGE_CONTRACT`): each row here is built from its stage's contract
 * row plus the columns of a run's behaviour. The status view and the run renderer derive their
 * stage lists from this table; the dispatcher moves a task only through `transition()`
 * (./transition.ts). Adding a stage (worktree apply, source definition of done, rollback,
 * escalation…) is a row of core's vocabulary, a row here, and its handler in the dispatcher's
 * stage map.
 */

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

/** One row of the lifecycle table: the stage's contract columns (core's `STAGE_CONTRACT`) and
 * how a run treats it. */
export interface StageRow extends StageContractRow {
  /** Human name, for status lines and messages. */
  label: string;
  /** The prompt template the stage's attempt is built from (agent stages). */
  prompt?: 'worker' | 'selfcheck' | 'review' | 'fixup';
  /** The stage has its own consecutive-failure budget. */
  budget: boolean;
  /** A new plan loop (a review asked for changes) starts the stage's failure counter over: the
   * stages that make and check the change before the review. The checks without a budget of
   * their own (write set, promise, apply) count every failure until they pass, across plan
   * loops; the reviews and the fixup reset theirs when they end. */
  planLoopReset: boolean;
  /** A quota error that names its reset parks the stage, uncharged, until the earliest reset
   * of its decision's candidates (config `park`). The self-check never does: it runs on the
   * worker's decision and resumes the worker's context, so it must not move that target. */
  quotaPark: boolean;
  /** Under worktree isolation the stage runs in the task's worktree: it is created (or
   * re-attached) before the stage runs. After the apply it is only cleaned up. */
  worktree: boolean;
  /** The stage takes one of the `max_parallel` agent slots while it runs. */
  agentSlot: boolean;
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

/**
 * The columns of a gate stage (the definition of done, the project's gates): commands run in
 * the task's worktree without an agent; a pass moves on, a failure goes back to the worker as
 * a correction.
 */
function gateColumns(stage: 'gate' | 'project-gates') {
  return {
    budget: true,
    planLoopReset: true,
    quotaPark: false,
    worktree: true,
    agentSlot: false,
    failover: false,
    outcomes: {
      passed: {
        next: after(stage),
        effects: ['reset-failures', 'clear-correction', 'mark-verified'],
      },
      'gate-failed': { next: [{ to: 'worker' }], effects: ['count-failure', 'record-correction'] },
    },
  } as const satisfies Omit<StageRow, keyof StageContractRow | 'label'>;
}

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
    ...STAGE_CONTRACT.worker,
    label: 'worker',
    prompt: 'worker',
    budget: true,
    planLoopReset: true,
    quotaPark: true,
    worktree: true,
    agentSlot: true,
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
    ...STAGE_CONTRACT.selfcheck,
    label: 'self-check',
    prompt: 'selfcheck',
    budget: true,
    planLoopReset: true,
    quotaPark: false,
    worktree: true,
    agentSlot: true,
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
    ...STAGE_CONTRACT.gate,
    label: 'definition-of-done gate',
    ...gateColumns('gate'),
  },
  // The project's own gates (config `gates`, `on: "task"`), after the task's definition of
  // done; a failing one goes back to the worker as a correction naming it.
  'project-gates': {
    ...STAGE_CONTRACT['project-gates'],
    label: 'project gates',
    ...gateColumns('project-gates'),
  },
  review: {
    ...STAGE_CONTRACT.review,
    label: 'review',
    prompt: 'review',
    budget: true,
    planLoopReset: false,
    quotaPark: true,
    worktree: true,
    agentSlot: true,
    failover: true,
    outcomes: reviewOutcomes('review'),
  },
  // `review: red-team`: a second, adversarial review after the normal one approved, by a
  // review candidate of another agent family than the worker's. Both must approve; its
  // CHANGES_REQUESTED starts plan loop N+1 like a normal review's.
  redteam: {
    ...STAGE_CONTRACT.redteam,
    label: 'red-team review',
    prompt: 'review',
    budget: true,
    planLoopReset: false,
    quotaPark: true,
    worktree: true,
    agentSlot: true,
    failover: true,
    outcomes: reviewOutcomes('redteam'),
  },
  // The worker's changes checked against the write set: under worktree isolation its diff
  // against its base, in the shared workspace the files changed since a snapshot taken before
  // it. Its failures count in `failures.writeset` (reset when it passes), not the worker's.
  writeset: {
    ...STAGE_CONTRACT.writeset,
    label: 'write-set check',
    budget: false,
    planLoopReset: false,
    quotaPark: false,
    worktree: true,
    agentSlot: false,
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
    ...STAGE_CONTRACT.fixup,
    label: 'fixup',
    prompt: 'fixup',
    budget: true,
    planLoopReset: false,
    quotaPark: true,
    worktree: true,
    agentSlot: true,
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
    ...STAGE_CONTRACT.promise,
    label: 'completion promise',
    budget: false,
    planLoopReset: false,
    quotaPark: false,
    worktree: false,
    agentSlot: false,
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
    ...STAGE_CONTRACT.apply,
    label: 'apply to source',
    budget: false,
    planLoopReset: false,
    quotaPark: false,
    worktree: true,
    agentSlot: false,
    failover: false,
    outcomes: {
      passed: { next: after('apply'), effects: ['reset-failures', 'clear-correction'] },
      'apply-failed': { next: [{ to: 'worker' }], effects: ['count-failure', 'record-correction'] },
      'apply-waiting': stay('apply'),
    },
  },
  archive: {
    ...STAGE_CONTRACT.archive,
    label: 'archive',
    budget: false,
    planLoopReset: false,
    quotaPark: false,
    worktree: false,
    agentSlot: false,
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
type TableWhere<K extends keyof StageRow, V> = StagesWhere<typeof TABLE, K, V>;
const tableWhere = <S extends LifecycleStage>(test: (row: StageRow) => boolean) =>
  stagesWhere<S, StageRow>(LIFECYCLE, test);

/** Stages with a consecutive-failure budget. */
export const BUDGET_STAGES = tableWhere<BudgetStageName>((r) => r.budget);
export type BudgetStageName = TableWhere<'budget', true>;
/** The checks of the work after an agent changed it (commands, git checks, the promise): a
 * failure sends the task back to the worker with a correction. */
export type CheckStageName = TableWhere<'kind', 'command' | 'git' | 'check'>;
/** Stages that run in the task's worktree under worktree isolation. */
export const WORKTREE_STAGES = tableWhere<WorktreeStageName>((r) => r.worktree);
export type WorktreeStageName = TableWhere<'worktree', true>;
/** Stages whose failure counter a new plan loop starts over. */
export const PLAN_LOOP_RESETS = tableWhere<PlanLoopResetName>((r) => r.planLoopReset);
export type PlanLoopResetName = TableWhere<'planLoopReset', true>;

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
