import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { copilotClassifier } from './classifier.js';
import { copilotSandboxWritable } from './sandbox.js';
import { copilotTranscript } from './transcript.js';

export { copilotClassifier } from './classifier.js';
export { copilotSandboxWritable } from './sandbox.js';
export { copilotTranscript, formatCopilotEvent } from './transcript.js';

/** Plugin entry: the Copilot classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [
    { ...copilotClassifier(options), sandboxWritable: copilotSandboxWritable },
    copilotTranscript(),
  ];
}
