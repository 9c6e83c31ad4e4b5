export {
  type BundleInput,
  buildEscalation,
  escalationCode,
  recommendedQuestion,
  tailLines,
} from './build-bundle.js';
export { openEscalations } from './open-escalations.js';
export {
  liftBlock,
  type ResolveOutcome,
  type ResolveRequest,
  resolveEscalation,
} from './resolve-escalation.js';
