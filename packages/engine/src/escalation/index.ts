export {
  type BundleInput,
  buildEscalation,
  escalationCode,
  recommendedQuestion,
  tailLines,
} from './build-bundle.js';
export {
  type ResolveOutcome,
  type ResolveRequest,
  resolveEscalation,
} from './resolve-escalation.js';
