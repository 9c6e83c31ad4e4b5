export { redactSecrets, type SecretValue, secretValuesOf } from './redact.js';
