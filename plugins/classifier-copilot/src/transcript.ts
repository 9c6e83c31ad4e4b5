import { defineTranscript, type TranscriptPlugin } from '@switchyard/core';

type Obj = Record<string, unknown>;
const short = (v: unknown, n = 300) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** Copilot `--output-format json` events as a readable transcript. */
export function formatCopilotEvent(event: Obj): string | undefined {
  const data = (event.data ?? {}) as Obj;
  switch (event.type) {
    case 'assistant.message':
      return typeof data.content === 'string' && data.content !== ''
        ? `assistant: ${data.content}`
        : undefined;
    case 'tool.execution_start':
      return `tool ${data.toolName}: ${short(data.arguments)}`;
    case 'tool.execution_complete':
      return `tool result${data.success === false ? ' (error)' : ''}: ${short((data.result as Obj | undefined)?.content ?? '')}`;
    case 'assistant.turn_retry':
      return `[retry] ${data.reason ?? ''}`;
    case 'session.error':
      return `[error] ${data.errorType ?? ''}: ${short(data.message, 500)}`;
    case 'result':
      return `[result] exit ${event.exitCode} session ${event.sessionId}`;
    default:
      return undefined;
  }
}

/** Transcript formatter for GitHub Copilot CLI. */
export function copilotTranscript(): TranscriptPlugin {
  return defineTranscript({
    meta: { name: '@switchyard/classifier-copilot/transcript', version: '0.0.0' },
    agents: ['copilot'],
    formatEvent: formatCopilotEvent,
  });
}
