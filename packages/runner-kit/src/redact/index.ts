export { redactSecrets, secretValuesOf } from './redact.js';
export {
  catalogReferencedNames,
  dispatcherSecrets,
  maskOf,
  maskSecretsBelow,
  maskSecretsInFile,
  redactDeep,
  redactedCopy,
  redactingReplacer,
} from './secret-set.js';
export { type MaskedChunk, type StreamMask, StreamMasker } from './stream-masker.js';
