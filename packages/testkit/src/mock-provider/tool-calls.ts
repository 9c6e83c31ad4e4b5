import type { MockProtocol } from './faults.js';

/**
 * Scripted tool calls: a successful reply can ask the agent CLI to run one of its own tools
 * (e.g. Claude Code's `Bash`, Codex's `exec_command`, Gemini CLI's and Qwen Code's
 * `run_shell_command`) instead of answering with text, so a live run really edits files.
 */
export interface MockToolCall {
  /** The call is made when the conversation's text contains this string (e.g. a prompt heading). */
  when: string;
  /** Tool name; the request must offer it (`tools[].name`), so side requests are not affected. */
  name: string;
  /** The tool's input, as the CLI's tool schema wants it. */
  input: Record<string, unknown>;
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
/** The text of a message content: a string, or parts with `text`. */
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : list(content)
        .map((p) => str(p.text))
        .join('\n');

/** How each protocol offers tools, returns their results, and carries the conversation. */
const SHAPES: Record<
  MockProtocol,
  { offered(body: Json): unknown[]; answered(body: Json): boolean; text(body: Json): string }
> = {
  anthropic: {
    offered: (b) => list(b.tools).map((t) => t.name),
    answered: (b) =>
      list(b.messages).some((m) => list(m.content).some((c) => c.type === 'tool_result')),
    text: (b) =>
      [JSON.stringify(b.system ?? ''), ...list(b.messages).map((m) => textOf(m.content))].join(
        '\n',
      ),
  },
  'openai-responses': {
    offered: (b) => list(b.tools).map((t) => t.name),
    answered: (b) => list(b.input).some((i) => /_call_output$/.test(str(i.type))),
    text: (b) => [str(b.instructions), ...list(b.input).map((i) => textOf(i.content))].join('\n'),
  },
  'openai-chat': {
    offered: (b) => list(b.tools).map((t) => (t.function as Json | undefined)?.name),
    answered: (b) => list(b.messages).some((m) => m.role === 'tool'),
    text: (b) =>
      list(b.messages)
        .map((m) => textOf(m.content))
        .join('\n'),
  },
  gemini: {
    offered: (b) => list(b.tools).flatMap((t) => list(t.functionDeclarations).map((f) => f.name)),
    answered: (b) =>
      list(b.contents).some((c) => list(c.parts).some((p) => p.functionResponse !== undefined)),
    text: (b) =>
      [
        textOf(list((b.systemInstruction as Json | undefined)?.parts)),
        ...list(b.contents).map((c) => textOf(c.parts)),
      ].join('\n'),
  },
};

/**
 * The scripted call for a request of `protocol`, if one applies: the request offers the tool,
 * its conversation holds the call's `when` text, and no tool result came back yet (one call
 * per conversation; after the result the reply is the final text).
 */
export function scriptedToolCall(
  protocol: MockProtocol,
  body: Json,
  calls: readonly MockToolCall[],
): MockToolCall | undefined {
  if (calls.length === 0) return undefined;
  const shape = SHAPES[protocol];
  if (shape.answered(body)) return undefined;
  const offered = new Set(shape.offered(body));
  const text = shape.text(body);
  return calls.find((c) => offered.has(c.name) && text.includes(c.when));
}

/** The scripted call for an Anthropic Messages request, if one applies. */
export function anthropicToolCall(body: Json, calls: readonly MockToolCall[]) {
  return scriptedToolCall('anthropic', body, calls);
}
