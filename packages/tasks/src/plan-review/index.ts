export {
  PLAN_REVIEW_CHECKS,
  type PlanFinding,
  type PlanReviewResult,
  type PlanUnderReview,
  parsePlanFindings,
  planReviewPrompt,
} from './plan-review.js';
