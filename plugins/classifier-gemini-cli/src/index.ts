import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { geminiCliClassifier } from './classifier.js';
import { geminiCliTranscript } from './transcript.js';
import { geminiCliUsage } from './usage.js';

export * from './classifier.js';
export * from './transcript.js';
export * from './usage.js';

/** Plugin entry: the Gemini CLI classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [{ ...geminiCliClassifier(options), usage: geminiCliUsage }, geminiCliTranscript()];
}
