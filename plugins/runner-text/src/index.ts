import { createRunner } from './create-runner.js';

export { AttemptMonitor, type MonitorOptions } from './attempt-monitor.js';
export { createRunner } from './create-runner.js';
export { FileTail } from './file-tail.js';
export type { AttemptHooks, HookContext, HooksFactory } from './hooks.js';
export { groupMembers, signalGroup, terminateAttempt } from './process-group.js';
export { reattachAttempt, startAttempt } from './run-attempt.js';
export {
  type SpawnAgentSpec,
  type SpawnedAgent,
  spawnAgent,
} from './spawn-agent.js';
export {
  type AgentExit,
  HelperSpawnError,
  type HelperSpawned,
  type HelperSpawnRequest,
  SpawnHelperClient,
} from './spawn-client.js';

/** The text runner: output_format "text", lines kept as printed. */
const runnerText = createRunner({
  name: '@switchyard/runner-text',
  outputFormats: ['text'],
});
export default runnerText;
