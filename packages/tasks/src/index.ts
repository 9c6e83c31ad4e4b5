export { convertMarkdownPlan, markdownProblem } from './orchestrate/markdown-convert.js';
export { checkRenderedPlans } from './orchestrate/plan-check.js';
export {
  type MaterializedTask,
  materializePlan,
  quoteArgv,
} from './orchestrate/plan-materialize.js';
export { planTaskRoutes, resolveWith } from './orchestrate/plan-routing.js';
export { choosePlanRun, type PlanRunChoice } from './orchestrate/plan-runs.js';
export { orchestratePlanJsonSchema, orchestratePlanSchema } from './orchestrate/plan-schema.js';
export { type ValidatedPlan, validateOrchestratePlan } from './orchestrate/plan-validate.js';
