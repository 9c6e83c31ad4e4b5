export { type ProjectGate, projectGateSchema, testGateOf } from './gates/gate-schema.js';
export { refuseUnjudgeableTests } from './gates/tests-required.js';
export { buildTaskGraph } from './graph/task-graph.js';
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
export { type YamlLocator, yamlLocator } from './orchestrate/yaml-positions.js';
export {
  type PlanReviewResult,
  type PlanUnderReview,
  parsePlanFindings,
  planReviewPrompt,
} from './plan-review/plan-review.js';
export { buildCorrectionPacket, type FailingOutput } from './review/correction-packet.js';
export { acceptedNotes, findingsToFix, reviewDisposition } from './review/disposition.js';
export { evaluateReview, type ReviewOutcome } from './review/evaluate-review.js';
export { failingLines } from './review/failing-lines.js';
export { type ParsedReview, parseReview } from './review/parse-review.js';
export { assertionText } from './task/assertion-text.js';
export { readChecklist } from './task/checklist.js';
export { parseAssertion } from './task/definition-of-done.js';
export { followUpDoneProblem } from './task/done-contract.js';
export { parseFrontMatter } from './task/front-matter.js';
export { hasErrors, parsePlan, parsePlanFile, readPlanText } from './task/parse-plan.js';
export { resolveDependency } from './task/task-id.js';
export { WriteSetResolver } from './task/write-set-path.js';
export {
  type LoadedTask,
  loadTask,
  loadWorkspace,
  loadWorkspaceAsync,
  taskFromPlanTexts,
  type WorkspaceModel,
} from './workspace/load.js';
export { scanWorkspace, strayPlanProblem } from './workspace/scan.js';
