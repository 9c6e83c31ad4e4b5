export {
  type ConvertedMarkdownPlan,
  convertMarkdownPlan,
  markdownProblem,
} from './orchestrate/markdown-convert.js';
export { checkRenderedPlans } from './orchestrate/plan-check.js';
export {
  type MaterializedStatus,
  type MaterializedTask,
  type MaterializeOptions,
  materializePlan,
  quoteArgv,
  renderTaskPlan,
} from './orchestrate/plan-materialize.js';
export {
  type BackendResolution,
  planTaskRoutes,
  resolveBackend,
  resolveWith,
  type StageRoute,
} from './orchestrate/plan-routing.js';
export { choosePlanRun, type PlanRunChoice } from './orchestrate/plan-runs.js';
export {
  ORCHESTRATE_PLAN_KIND,
  ORCHESTRATE_PLAN_VERSION,
  type OrchestratePlan,
  type OrchestratePlanTask,
  orchestratePlanJsonSchema,
  orchestratePlanSchema,
  PLAN_RUNNERS,
  type PlanRunner,
  planTaskSchema,
} from './orchestrate/plan-schema.js';
export {
  DEFAULT_PLAN_ROUTE,
  type PlanValidationOptions,
  type ResolvedPlanTask,
  type ValidatedPlan,
  validateOrchestratePlan,
} from './orchestrate/plan-validate.js';
export type { SourcePosition } from './orchestrate/yaml-positions.js';
