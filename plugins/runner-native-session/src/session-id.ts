/**
 * The native session id an agent CLI announces in its JSONL stream, per agent family:
 * - Claude Code / Qwen Code (`stream-json`): the `system`/`init` event's `session_id`;
 * - Codex (`exec --json`): `thread.started` → `thread_id`;
 * - Gemini CLI (`stream-json`): `init` → `session_id`;
 * - Copilot (`--output-format json`): the final `result` event's `sessionId`.
 * Other agents: an init/start-type event's `session_id`/`sessionId`/`thread_id`.
 */
export function sessionIdFromEvent(
  agent: string,
  event: Record<string, unknown>,
): string | undefined {
  const type = typeof event.type === 'string' ? event.type : '';
  const pick = (value: unknown) =>
    typeof value === 'string' && value.length > 0 ? value : undefined;
  switch (agent) {
    case 'claude-code':
    case 'qwen-code':
      return type === 'system' && event.subtype === 'init' ? pick(event.session_id) : undefined;
    case 'codex':
      return type === 'thread.started' ? pick(event.thread_id) : undefined;
    case 'gemini-cli':
      return type === 'init' ? pick(event.session_id) : undefined;
    case 'copilot':
      return type === 'result' ? pick(event.sessionId) : undefined;
    default:
      return /init|start/i.test(type)
        ? (pick(event.session_id) ?? pick(event.sessionId) ?? pick(event.thread_id))
        : undefined;
  }
}

const COPILOT_FOOTER = /^\s*Resume\s+copilot --resume=([\w-]+)\s*$/;

/**
 * The native session id an agent CLI prints as text: Copilot ends every run (text or JSON
 * mode) with a footer line `Resume     copilot --resume=<id>` on stderr.
 */
export function sessionIdFromTextLine(agent: string, line: string): string | undefined {
  if (agent !== 'copilot') return undefined;
  return COPILOT_FOOTER.exec(line)?.[1];
}
