export {
  type BundleInput,
  buildEscalation,
  escalationCode,
  recommendedQuestion,
  tailLines,
} from './build-bundle.js';
export {
  ESCALATION_CODES,
  type EscalationCode,
  type FailureBundle,
  failureBundleSchema,
  type InterviewRequest,
  interviewRequestSchema,
  RESOLUTIONS,
  type ResolutionAction,
} from './escalation-schema.js';
export {
  ESCALATIONS_DIR,
  type EscalationEntry,
  escalationPaths,
  isOpen,
  listOpenEscalations,
  readBundle,
  recordResolution,
  writeEscalation,
} from './escalation-store.js';
export {
  liftBlock,
  type ResolveOutcome,
  type ResolveRequest,
  resolveEscalation,
} from './resolve-escalation.js';
