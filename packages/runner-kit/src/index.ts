// What other packages use: the engine, the CLI and the runner and classifier plugins.
export {
  attemptEnvironment,
  inheritedEnvironment,
  PROCESS_MARKER_VAR,
} from './attempt/environment.js';
export { formatHeartbeat, type Heartbeat, readLastHeartbeat } from './attempt/heartbeat.js';
export { ATTEMPT_FILES, attemptPaths } from './attempt/layout.js';
export { readLocator, writeLocator } from './attempt/locator-file.js';
export { createLocator, finalizeLocator, recordLocatorExit } from './attempt/locator-writer.js';
export { type PromptDeliveryPlan, planPromptDelivery } from './attempt/prompt-delivery.js';
export { frameHeader, readStreamLog, scanStreamLog } from './attempt/stream-log.js';
export { fillTemplate } from './attempt/template.js';
export { workspaceIdentity } from './attempt/workspace-identity.js';
export { extractUsage } from './cost/extract.js';
export { formatUsd, priceUsage, roundUsd, tokensOf } from './cost/price.js';
export {
  describeUsage,
  summarizeUsage,
  type UsageSummary,
  type UsageTotals,
  usageLine,
} from './cost/usage-totals.js';
export { buildTerminalEvidence } from './evidence/build-evidence.js';
export { classifyEvidence } from './evidence/classify-evidence.js';
export { httpStatusesIn, isObjectDumpLine, isStackFrame } from './evidence/error-evidence.js';
export { capAttemptEvidence, DEFAULT_MAX_ATTEMPT_EVIDENCE_BYTES } from './evidence/evidence-cap.js';
export {
  collectEvidence,
  EvidenceCollector,
  type StreamName,
} from './evidence/evidence-collector.js';
export { evidenceMessage } from './evidence/evidence-message.js';
export { type PruneEvidenceReport, pruneAttemptEvidence } from './evidence/evidence-prune.js';
export { parseJsonObjectLine } from './evidence/json-line.js';
export { LineFramer } from './evidence/line-framer.js';
export { findRetryAfter } from './evidence/retry-after.js';
export { parseCliVersion, unverifiedVersionWarning } from './evidence/verified-versions.js';
export { loadPlugins } from './plugins/loader.js';
export { PluginSet } from './plugins/plugin-set.js';
export {
  dispatcherSecrets,
  maskSecretsBelow,
  maskSecretsInFile,
  redactDeep,
  redactedCopy,
  redactSecrets,
  StreamMasker,
  secretValuesOf,
} from './redact/index.js';
export { sandboxedArgv } from './sandbox/bwrap-argv.js';
export { planSandbox } from './sandbox/sandbox-plan.js';
