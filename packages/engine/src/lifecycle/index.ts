// The lifecycle as the engine reads it: the table and the one way a task moves, with the
// vocabulary of stage names the table is built from (core's, which the persisted formats share).
export {
  type AttemptRoleName,
  DECISION_KEYS,
  type FailureCounterName,
  FINAL_PHASE,
  INITIAL_PHASE,
  type LifecycleStage,
  PHASES,
  type Phase,
  reviewFileOf,
} from '@switchyard/core/lifecycle';
export {
  type BudgetStageName,
  backToWorkerOutcome,
  type CheckStageName,
  decisionKeyOf,
  type Effect,
  LIFECYCLE,
  type LifecycleFacts,
  type Outcome,
  PLAN_LOOP_RESETS,
  phaseLabel,
  promptTemplateOf,
  stageRow,
  takesAgentSlot,
  WORKTREE_STAGES,
} from './lifecycle-table.js';
export { transition } from './transition.js';
