import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { geminiCliClassifier } from './classifier.js';
import { geminiCliPermissionArgs } from './permissions.js';
import { geminiCliSandboxWritable } from './sandbox.js';
import { geminiCliTranscript } from './transcript.js';
import { geminiCliUsage } from './usage.js';

/** Plugin entry: the Gemini CLI classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [
    {
      ...geminiCliClassifier(options),
      usage: geminiCliUsage,
      sandboxWritable: geminiCliSandboxWritable,
      permissionArgs: geminiCliPermissionArgs,
    },
    geminiCliTranscript(),
  ];
}
