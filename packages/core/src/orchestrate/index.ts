export {
  type ConvertedMarkdownPlan,
  convertMarkdownPlan,
  markdownProblem,
} from './markdown-convert.js';
export { checkRenderedPlans } from './plan-check.js';
export {
  type MaterializedStatus,
  type MaterializedTask,
  type MaterializeOptions,
  materializePlan,
  quoteArgv,
  renderTaskPlan,
} from './plan-materialize.js';
export {
  type BackendResolution,
  planTaskRoutes,
  resolveBackend,
  resolveWith,
  type StageRoute,
} from './plan-routing.js';
export { choosePlanRun, type PlanRunChoice } from './plan-runs.js';
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
} from './plan-schema.js';
export {
  DEFAULT_PLAN_ROUTE,
  type PlanValidationOptions,
  type ResolvedPlanTask,
  type ValidatedPlan,
  validateOrchestratePlan,
} from './plan-validate.js';
export type { SourcePosition } from './yaml-positions.js';
