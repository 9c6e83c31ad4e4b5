/**
 * The lifecycle's vocabulary: the stages a task goes through, in order, each with the columns
 * of its row that shape what is kept (a task state's phases, decisions, failure counters and
 * correction sources, an attempt's role, the work log's role column, the review file names).
 * The engine's lifecycle table (`@switchyard/engine`, `src/lifecycle/`) is built from these
 * rows: it adds to each the columns of a run's behaviour (outcomes, budgets, prompts, slots…),
 * so a stage is named here once and every list of stages derives from a column.
 */

/** How a stage runs (`check`: the dispatcher judges its own records). */
export type StageKind = 'agent' | 'command' | 'archive' | 'git' | 'check';

/** The columns of a stage's row that the persisted formats derive from. */
export interface StageContractRow {
  kind: StageKind;
  /** The catalog decision whose target runs the stage (agent stages; the fixup stage's target
   * is named by the project config). */
  decision?: 'worker' | 'review';
  /** Where the stage's catalog decision is kept in a task state's `decisions` (agent stages;
   * the self-check runs on the worker's). */
  decisionKey?: 'worker' | 'review' | 'redteam' | 'fixup';
  /** The stage keeps a consecutive-failure counter in a task state's `failures` (a stage
   * without a budget counts its failures too: the write set, the promise and the apply). */
  failureCounter: boolean;
  /** A failure of the stage reaches the worker's next prompt as a correction of this source. */
  correctionSource: boolean;
  /** The stage writes START/FINISH rows to the group's work log. */
  workLog: boolean;
  /** The review file an attempt of the stage writes, `<n>` being the plan loop (review stages). */
  reviewFile?: `CODE_REVIEW-<n>${string}.md`;
}

/** The stages in lifecycle order, each with its contract columns. */
export const STAGE_CONTRACT = {
  worker: {
    kind: 'agent',
    decision: 'worker',
    decisionKey: 'worker',
    failureCounter: true,
    correctionSource: false,
    workLog: true,
  },
  selfcheck: {
    kind: 'agent',
    decision: 'worker',
    decisionKey: 'worker',
    failureCounter: true,
    correctionSource: true,
    workLog: true,
  },
  // The worker's changes checked against the write set (its failures count in
  // `failures.writeset`, not the worker's).
  // It judges the agent's work: one START/FINISH pair per check (the dispatcher's git-stage rows).
  writeset: { kind: 'git', failureCounter: true, correctionSource: true, workLog: true },
  gate: { kind: 'command', failureCounter: true, correctionSource: true, workLog: true },
  // The project's own gates (config `gates`, `on: "task"`), after the task's definition of done.
  'project-gates': { kind: 'command', failureCounter: true, correctionSource: true, workLog: true },
  review: {
    kind: 'agent',
    decision: 'review',
    decisionKey: 'review',
    failureCounter: true,
    correctionSource: true,
    workLog: true,
    reviewFile: 'CODE_REVIEW-<n>.md',
  },
  // `review: red-team`: a second review on a review candidate, keeping a target of its own.
  redteam: {
    kind: 'agent',
    decision: 'review',
    decisionKey: 'redteam',
    failureCounter: true,
    correctionSource: false,
    workLog: true,
    reviewFile: 'CODE_REVIEW-<n>.red-team.md',
  },
  // `review.fixupTarget`: its target is named by the project config, not a catalog decision.
  fixup: {
    kind: 'agent',
    decisionKey: 'fixup',
    failureCounter: true,
    correctionSource: false,
    workLog: true,
  },
  // The completion promise, before anything lands.
  promise: { kind: 'check', failureCounter: true, correctionSource: true, workLog: false },
  // Worktree isolation: the task's commit applied to the source. It judges the agent's work
  // too: one START/FINISH pair per check.
  apply: { kind: 'git', failureCounter: true, correctionSource: true, workLog: true },
  archive: { kind: 'archive', failureCounter: false, correctionSource: false, workLog: false },
} as const satisfies Record<string, StageContractRow>;

export type LifecycleStage = keyof typeof STAGE_CONTRACT;
/** The stages, in lifecycle order. */
export const LIFECYCLE_STAGES = Object.keys(STAGE_CONTRACT) as unknown as readonly [
  LifecycleStage,
  ...LifecycleStage[],
];

/** A task's phase: the stage the dispatcher runs next, or `done` once it is archived. */
export const PHASES = [...LIFECYCLE_STAGES, 'done'] as const;
export type Phase = (typeof PHASES)[number];

/** The phase of a task that has never run. */
export const INITIAL_PHASE = 'worker' satisfies Phase;
/** The phase of an archived, verified task. */
export const FINAL_PHASE = 'done' satisfies Phase;

/** The stages whose row of `Table` has `value` in `column` (a type derived from a table). */
export type StagesWhere<Table extends Record<LifecycleStage, object>, K extends string, V> = {
  [S in LifecycleStage]: Table[S] extends Record<K, V> ? S : never;
}[LifecycleStage];

/** The stages whose row of `table` passes `test`, in lifecycle order (a non-empty tuple for
 * zod enums). */
export const stagesWhere = <S extends LifecycleStage, Row>(
  table: Readonly<Record<LifecycleStage, Row>>,
  test: (row: Row) => boolean,
) => LIFECYCLE_STAGES.filter((s) => test(table[s])) as unknown as readonly [S, ...S[]];

/** The distinct values of a column, in lifecycle order. */
const columnValues = <V extends string>(value: (row: StageContractRow) => V | undefined) =>
  [
    ...new Set(LIFECYCLE_STAGES.flatMap((s) => value(STAGE_CONTRACT[s]) ?? [])),
  ] as unknown as readonly [V, ...V[]];

type ContractWhere<K extends keyof StageContractRow, V> = StagesWhere<typeof STAGE_CONTRACT, K, V>;
const contractWhere = <S extends LifecycleStage>(test: (row: StageContractRow) => boolean) =>
  stagesWhere<S, StageContractRow>(STAGE_CONTRACT, test);

/** Stages run by an agent attempt: the values of an attempt's role (`SWITCHYARD_ROLE`). */
export const ATTEMPT_ROLES = contractWhere<AttemptRoleName>((r) => r.kind === 'agent');
export type AttemptRoleName = ContractWhere<'kind', 'agent'>;
/** Catalog decisions stages run on (self-check runs on the worker's, the red-team review on a
 * review candidate): the catalog's route kinds. */
export const DECISION_STAGES = columnValues<DecisionStageName>((r) => r.decision);
export type DecisionStageName = NonNullable<StageContractRow['decision']>;
/** Where stages keep their decision: the keys of a task state's `decisions`. */
export const DECISION_KEYS = columnValues<DecisionKeyName>((r) => r.decisionKey);
export type DecisionKeyName = NonNullable<StageContractRow['decisionKey']>;
/** Stages with a consecutive-failure counter: the keys of a task state's `failures`. */
export const FAILURE_COUNTERS = contractWhere<FailureCounterName>((r) => r.failureCounter);
export type FailureCounterName = ContractWhere<'failureCounter', true>;
/** Stages that write work-log rows (the log's role column). */
export type WorkLogStageName = ContractWhere<'workLog', true>;
/** The log's role column: a stage, or `setup` (a new worktree's set-up, before its first
 * stage: not a stage of the task, it runs again whenever the worktree is created anew). */
export type WorkLogRoleName = WorkLogStageName | 'setup';
/** Sources of a correction shown to the next worker attempt. */
export const CORRECTION_SOURCES = contractWhere<CorrectionSourceName>((r) => r.correctionSource);
export type CorrectionSourceName = ContractWhere<'correctionSource', true>;
/** Stages whose attempts write a review file (the normal review and the red-team one). */
export type ReviewStageName = ContractWhere<'reviewFile', string>;

/** The review file an attempt of `stage` writes in plan loop `loop` (none: not a review stage). */
export function reviewFileOf(stage: ReviewStageName, loop: number): string;
export function reviewFileOf(stage: Phase, loop: number): string | undefined;
export function reviewFileOf(stage: Phase, loop: number): string | undefined {
  if (stage === FINAL_PHASE) return undefined;
  const row: StageContractRow = STAGE_CONTRACT[stage];
  return row.reviewFile?.replace('<n>', String(loop));
}
