export { extractUsage } from './cost/extract.js';
export {
  describeUsage,
  summarizeUsage,
  type UsageSummary,
  type UsageTotals,
  usageLine,
} from './cost/usage-totals.js';
export {
  dispatcherSecrets,
  maskSecretsBelow,
  maskSecretsInFile,
  redactDeep,
  redactSecrets,
  StreamMasker,
  secretValuesOf,
} from './redact/index.js';
