import type { ClassifierOptions } from '@switchyard/classifier-generic';
import type { SwitchyardPlugin } from '@switchyard/core';
import { copilotClassifier } from './classifier.js';
import { copilotPermissionArgs } from './permissions.js';
import { copilotSandboxWritable } from './sandbox.js';
import { copilotTranscript } from './transcript.js';

/** Plugin entry: the Copilot classifier and transcript formatter. */
export default function plugin(options?: ClassifierOptions): SwitchyardPlugin[] {
  return [
    {
      ...copilotClassifier(options),
      sandboxWritable: copilotSandboxWritable,
      permissionArgs: copilotPermissionArgs,
    },
    copilotTranscript(),
  ];
}
