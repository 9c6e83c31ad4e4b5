/**
 * Scripted tool calls: a successful reply can ask the agent CLI to run one of its own tools
 * (e.g. Claude Code's `Bash`) instead of answering with text, so a live run really edits files.
 */
export interface MockToolCall {
  /** The call is made when the conversation's text contains this string (e.g. a prompt heading). */
  when: string;
  /** Tool name; the request must offer it (`tools[].name`), so side requests are not affected. */
  name: string;
  /** The tool's input, as the CLI's tool schema wants it. */
  input: Record<string, unknown>;
}

/** The scripted call for an Anthropic Messages request, if one applies. */
export function anthropicToolCall(
  body: Record<string, unknown>,
  calls: readonly MockToolCall[],
): MockToolCall | undefined {
  if (calls.length === 0) return undefined;
  const offered = new Set(
    (Array.isArray(body.tools) ? body.tools : []).map((t) => (t as { name?: unknown }).name),
  );
  const messages = Array.isArray(body.messages) ? body.messages : [];
  // One call per conversation: once a tool result came back, the reply is the final text.
  const blocks = messages.flatMap((m) => {
    const content = (m as { content?: unknown }).content;
    return Array.isArray(content) ? content : [{ type: 'text', text: content }];
  });
  if (blocks.some((b) => (b as { type?: unknown }).type === 'tool_result')) return undefined;
  const text = [
    JSON.stringify(body.system ?? ''),
    ...blocks.map((b) => String((b as { text?: unknown }).text ?? '')),
  ].join('\n');
  return calls.find((c) => offered.has(c.name) && text.includes(c.when));
}
