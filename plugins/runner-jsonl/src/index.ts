import { createRunner } from '@switchyard/runner-text';

/**
 * The JSONL runner: output_format "jsonl". Lines are framed by core's LineFramer (partial
 * lines across reads, CRLF, huge lines cut and counted, non-JSON noise kept as text), parsed,
 * checked for generic terminal events (error/fatal type or severity, failed status with an
 * error code, explicit error flags), and formatted through the agent's TranscriptPlugin.
 */
const runnerJsonl = createRunner({
  name: '@switchyard/runner-jsonl',
  outputFormats: ['jsonl'],
});
export default runnerJsonl;
