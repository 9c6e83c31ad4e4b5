import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { codexClassifier } from './classifier.js';
import { codexPermissionArgs } from './permissions.js';
import { codexSandboxWritable } from './sandbox.js';
import { codexTranscript } from './transcript.js';
import { codexUsage } from './usage.js';

/** Plugin entry: the Codex classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [
    {
      ...codexClassifier(options),
      usage: codexUsage,
      sandboxWritable: codexSandboxWritable,
      permissionArgs: codexPermissionArgs,
    },
    codexTranscript(),
  ];
}
