import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { claudeCodeClassifier } from './classifier.js';
import { claudeCodeSandboxWritable } from './sandbox.js';
import { claudeCodeTranscript } from './transcript.js';
import { claudeCodeUsage } from './usage.js';

export { claudeCodeClassifier } from './classifier.js';
export { claudeCodeSandboxWritable } from './sandbox.js';
export { claudeCodeTranscript } from './transcript.js';
export { claudeCodeUsage } from './usage.js';

/** Plugin entry: the Claude Code classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [
    {
      ...claudeCodeClassifier(options),
      usage: claudeCodeUsage,
      sandboxWritable: claudeCodeSandboxWritable,
    },
    claudeCodeTranscript(),
  ];
}
