import { defineTranscript, type TranscriptPlugin } from '@switchyard/core';

type Obj = Record<string, unknown>;
const short = (v: unknown, n = 300) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** Gemini CLI `--output-format stream-json` events as a readable transcript. */
export function formatGeminiEvent(event: Obj): string | undefined {
  switch (event.type) {
    case 'init':
      return `[init] session ${event.session_id} model ${event.model}`;
    case 'message':
      return `${event.role}: ${event.content}`;
    case 'tool_use':
      return `tool ${event.tool_name}: ${short(event.parameters)}`;
    case 'tool_result':
      return `tool result (${event.status}): ${short(event.output ?? (event.error as Obj | undefined)?.message ?? '')}`;
    case 'error':
      return `[${event.severity ?? 'error'}] ${event.message}`;
    case 'result':
      return event.status === 'success'
        ? `[result] ok ${short(event.stats)}`
        : `[result] error: ${short((event.error as Obj | undefined)?.message ?? event.error, 500)}`;
    default:
      return undefined;
  }
}

/** Transcript formatter for Gemini CLI. */
export function geminiCliTranscript(): TranscriptPlugin {
  return defineTranscript({
    meta: { name: '@switchyard/classifier-gemini-cli/transcript', version: '0.0.0' },
    agents: ['gemini-cli'],
    formatEvent: formatGeminiEvent,
  });
}
