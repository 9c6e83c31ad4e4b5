export * from './build-evidence.js';
export * from './classify-evidence.js';
export { httpStatusesIn, isObjectDumpLine, isStackFrame } from './error-evidence.js';
export {
  capAttemptEvidence,
  DEFAULT_MAX_ATTEMPT_EVIDENCE_BYTES,
  EVIDENCE_CUT_FILE,
  type EvidenceCut,
} from './evidence-cap.js';
export * from './evidence-collector.js';
export { evidenceMessage } from './evidence-message.js';
export {
  EVIDENCE_PRUNED_FILE,
  type PrunedAttempt,
  type PruneEvidenceOptions,
  type PruneEvidenceReport,
  pruneAttemptEvidence,
} from './evidence-prune.js';
export * from './json-line.js';
export * from './line-framer.js';
export * from './retry-after.js';
export * from './tail-buffer.js';
export * from './terminal-event.js';
export { onReleaseLine, parseCliVersion, unverifiedVersionWarning } from './verified-versions.js';
