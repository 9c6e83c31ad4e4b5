import type { SwitchyardPlugin } from '@switchyard/core';
import { genericClassifier } from './generic-classifier.js';
import { genericTranscript } from './generic-transcript.js';
import type { ClassifierOptions } from './options.js';

export {
  type AgentClassifierSpec,
  createAgentClassifier,
  eventAndStderrCandidates,
  eventCandidates,
  finalEventSuccess,
  STDIN_PROMPT_NOTE,
} from './agent-classifier.js';
export { type Candidate, errorLineCandidates } from './error-lines.js';

export { type ClassifierOptions, parseClassifierOptions } from './options.js';

export { formatStreamJsonEvent } from './stream-json-transcript.js';
export { streamJsonResultUsage } from './stream-json-usage.js';
export { eventText } from './verdict.js';

/** Plugin entry: the generic classifier and the generic transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [genericClassifier(options), genericTranscript()];
}
