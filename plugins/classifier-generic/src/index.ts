import type { SwitchyardPlugin } from '@switchyard/core';
import { genericClassifier } from './generic-classifier.js';
import { genericTranscript } from './generic-transcript.js';
import type { ClassifierOptions } from './options.js';

export * from './agent-classifier.js';
export * from './error-lines.js';
export * from './fixture-harness.js';
export * from './generic-classifier.js';
export * from './generic-transcript.js';
export * from './options.js';
export * from './rules.js';
export * from './stream-json-transcript.js';
export * from './stream-json-usage.js';
export * from './verdict.js';

/** Plugin entry: the generic classifier and the generic transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [genericClassifier(options), genericTranscript()];
}
