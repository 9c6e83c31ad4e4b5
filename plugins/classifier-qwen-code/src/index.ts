import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { qwenCodeClassifier } from './classifier.js';
import { qwenCodePermissionArgs } from './permissions.js';
import { qwenCodeSandboxWritable } from './sandbox.js';
import { qwenCodeTranscript } from './transcript.js';
import { qwenCodeUsage } from './usage.js';

/** Plugin entry: the Qwen Code classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [
    {
      ...qwenCodeClassifier(options),
      usage: qwenCodeUsage,
      sandboxWritable: qwenCodeSandboxWritable,
      permissionArgs: qwenCodePermissionArgs,
    },
    qwenCodeTranscript(),
  ];
}
