import { createRunner } from './create-runner.js';

export { AttemptMonitor } from './attempt-monitor.js';
export { createRunner } from './create-runner.js';

export type { AttemptHooks, HookContext, HooksFactory } from './hooks.js';

export { startAttempt } from './run-attempt.js';

export { SpawnHelperClient } from './spawn-client.js';

/** The text runner: output_format "text", lines kept as printed. */
const runnerText = createRunner({
  name: '@switchyard/runner-text',
  outputFormats: ['text'],
});
export default runnerText;
