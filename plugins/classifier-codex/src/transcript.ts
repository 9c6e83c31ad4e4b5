import { defineTranscript, type TranscriptPlugin } from '@switchyard/core';

type Obj = Record<string, unknown>;
const short = (v: unknown, n = 300) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

function item(event: Obj): string | undefined {
  const it = (event.item ?? {}) as Obj;
  switch (it.type) {
    case 'agent_message':
      return `assistant: ${it.text}`;
    case 'reasoning':
      return `thinking: ${short(it.text)}`;
    case 'command_execution':
      return `tool shell: ${short(it.command)}${it.exit_code === undefined || it.exit_code === null ? '' : ` (exit ${it.exit_code})`}`;
    case 'file_change':
      return `tool edit: ${short(it.changes)}`;
    case 'mcp_tool_call':
      return `tool ${it.server}/${it.tool}`;
    case 'error':
      return `[warning] ${it.message}`;
    default:
      return undefined;
  }
}

/** Codex `exec --json` events as a readable transcript. */
export function formatCodexEvent(event: Obj): string | undefined {
  switch (event.type) {
    case 'thread.started':
      return `[thread] ${event.thread_id}`;
    case 'item.completed':
      return item(event);
    case 'error':
      return `[error] ${event.message}`;
    case 'turn.failed':
      return `[turn failed] ${short((event.error as Obj | undefined)?.message ?? event.error)}`;
    case 'turn.completed':
      return `[turn completed] ${short(event.usage)}`;
    default:
      return undefined;
  }
}

/** Transcript formatter for Codex. */
export function codexTranscript(): TranscriptPlugin {
  return defineTranscript({
    meta: { name: '@switchyard/classifier-codex/transcript', version: '0.0.0' },
    agents: ['codex'],
    formatEvent: formatCodexEvent,
  });
}
