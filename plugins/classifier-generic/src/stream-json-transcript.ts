type Obj = Record<string, unknown>;
const short = (v: unknown, n = 200) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

function blocks(message: unknown): Obj[] {
  const content = (message as Obj | undefined)?.content;
  return Array.isArray(content) ? (content as Obj[]) : [];
}

/**
 * `stream-json` events in the shape several agent CLIs share (system/assistant/user/result
 * with message content blocks) as readable transcript lines.
 */
export function formatStreamJsonEvent(event: Obj): string | undefined {
  switch (event.type) {
    case 'system':
      if (event.subtype === 'init')
        return `[init] session ${event.session_id} model ${event.model}`;
      if (event.subtype === 'api_retry' || event.subtype === 'retry')
        return `[retry] ${short(event.data ?? { attempt: event.attempt, status: event.error_status, error: event.error })}`;
      return undefined;
    case 'assistant':
    case 'user': {
      // a plain loop and string: this runs for most lines of a long stream
      let out: string | undefined;
      for (const b of blocks(event.message)) {
        let line: string;
        if (b.type === 'text') line = `${event.type}: ${b.text}`;
        else if (b.type === 'tool_use') line = `tool ${b.name}: ${short(b.input)}`;
        else if (b.type === 'tool_result')
          line = `tool result${b.is_error ? ' (error)' : ''}: ${short(b.content)}`;
        else if (b.type === 'thinking') line = `thinking: ${short(b.thinking)}`;
        else continue;
        out = out === undefined ? line : `${out}\n${line}`;
      }
      return out;
    }
    case 'result':
      return `[result] ${event.is_error ? 'error' : 'ok'} ${event.subtype ?? ''}: ${short(event.result ?? (event.error as Obj | undefined)?.message ?? '', 500)}`;
    default:
      return undefined;
  }
}
