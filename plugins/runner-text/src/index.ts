import { createRunner } from './create-runner.js';

export * from './attempt-monitor.js';
export * from './create-runner.js';
export * from './file-tail.js';
export * from './hooks.js';
export * from './process-group.js';
export * from './run-attempt.js';
export * from './spawn-agent.js';
export * from './spawn-client.js';

/** The text runner: output_format "text", lines kept as printed. */
const runnerText = createRunner({
  name: '@switchyard/runner-text',
  outputFormats: ['text'],
});
export default runnerText;
