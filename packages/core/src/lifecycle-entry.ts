// `@switchyard/core/lifecycle`: the lifecycle's vocabulary (the stages in order, the phases,
// each stage's contract columns and the lists derived from them), for the engine's lifecycle
// table, the CLI and the stores. It loads only `src/lifecycle/stages.ts`, so light entries
// (`@switchyard/engine/dry-run`) can take it without core's root entry. Same objects as the
// root and dry-run entries (shared chunks).
export {
  type AttemptRoleName,
  DECISION_KEYS,
  DECISION_STAGES,
  type DecisionKeyName,
  type FailureCounterName,
  FINAL_PHASE,
  INITIAL_PHASE,
  LIFECYCLE_STAGES,
  type LifecycleStage,
  PHASES,
  type Phase,
  reviewFileOf,
  STAGE_CONTRACT,
  type StageContractRow,
  type StagesWhere,
  stagesWhere,
  type WorkLogRoleName,
} from './lifecycle/stages.js';
