import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { claudeCodeClassifier } from './classifier.js';
import { claudeCodePermissionArgs } from './permissions.js';
import { claudeCodeSandboxWritable } from './sandbox.js';
import { claudeCodeTranscript } from './transcript.js';
import { claudeCodeUsage } from './usage.js';

/** Plugin entry: the Claude Code classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [
    {
      ...claudeCodeClassifier(options),
      usage: claudeCodeUsage,
      sandboxWritable: claudeCodeSandboxWritable,
      permissionArgs: claudeCodePermissionArgs,
    },
    claudeCodeTranscript(),
  ];
}
