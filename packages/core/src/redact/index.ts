export { redactSecrets, type SecretValue, secretValuesOf } from './redact.js';
export {
  catalogReferencedNames,
  dispatcherSecrets,
  maskSecretsBelow,
  maskSecretsInFile,
  redactDeep,
  redactingReplacer,
} from './secret-set.js';
