import type { FakeAgentFormat } from './scenario.js';

/** Prints events in the shape of one real CLI's output mode. */
export interface FormatPrinter {
  init(): string[];
  say(text: string): string[];
  tool(name: string, input: Record<string, unknown>): string[];
  result(text: string, usage?: FakeUsage): string[];
}

/** Usage a scripted result reports (see the `result` step). */
export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd?: number | undefined;
}

const json = (value: unknown): string => JSON.stringify(value);

/** Claude Code `-p --output-format stream-json` (Qwen Code prints the same shape). */
function claudeLike(sessionId: string, cwd: string, model: string): FormatPrinter {
  let turn = 0;
  return {
    init: () => [
      json({ type: 'system', subtype: 'init', cwd, session_id: sessionId, tools: [], model }),
    ],
    say: (text) => [
      json({
        type: 'assistant',
        message: {
          id: `msg_${++turn}`,
          role: 'assistant',
          model,
          content: [{ type: 'text', text }],
        },
        session_id: sessionId,
      }),
    ],
    tool: (name, input) => [
      json({
        type: 'assistant',
        message: {
          id: `msg_${++turn}`,
          role: 'assistant',
          model,
          content: [{ type: 'tool_use', id: `toolu_${turn}`, name, input }],
        },
        session_id: sessionId,
      }),
    ],
    result: (text, usage) => [
      json({
        type: 'result',
        subtype: 'success',
        is_error: false,
        num_turns: turn,
        result: text,
        session_id: sessionId,
        ...(usage
          ? {
              usage: {
                input_tokens: usage.inputTokens,
                output_tokens: usage.outputTokens,
                cache_read_input_tokens: usage.cacheReadTokens,
              },
              ...(usage.costUsd !== undefined ? { total_cost_usd: usage.costUsd } : {}),
            }
          : {}),
      }),
    ],
  };
}

/** Codex `exec --json`. */
function codex(sessionId: string): FormatPrinter {
  let item = 0;
  return {
    init: () => [
      json({ type: 'thread.started', thread_id: sessionId }),
      json({ type: 'turn.started' }),
    ],
    say: (text) => [
      json({ type: 'item.completed', item: { id: `item_${item++}`, type: 'agent_message', text } }),
    ],
    tool: (name, input) => [
      json({
        type: 'item.completed',
        item: {
          id: `item_${item++}`,
          type: 'command_execution',
          command: `${name} ${json(input)}`,
          aggregated_output: '',
          exit_code: 0,
          status: 'completed',
        },
      }),
    ],
    result: (text, usage) => [
      json({ type: 'item.completed', item: { id: `item_${item++}`, type: 'agent_message', text } }),
      json({
        type: 'turn.completed',
        usage: usage
          ? {
              input_tokens: usage.inputTokens + usage.cacheReadTokens,
              cached_input_tokens: usage.cacheReadTokens,
              output_tokens: usage.outputTokens,
            }
          : { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 },
      }),
    ],
  };
}

/** Gemini CLI `--output-format stream-json`. */
function gemini(sessionId: string, model: string): FormatPrinter {
  const now = () => new Date().toISOString();
  let tool = 0;
  return {
    init: () => [json({ type: 'init', timestamp: now(), session_id: sessionId, model })],
    say: (text) => [
      json({ type: 'message', timestamp: now(), role: 'assistant', content: text, delta: true }),
    ],
    tool: (name, input) => {
      const id = `${name}-${++tool}`;
      return [
        json({
          type: 'tool_use',
          timestamp: now(),
          tool_name: name,
          tool_id: id,
          parameters: input,
        }),
        json({ type: 'tool_result', timestamp: now(), tool_id: id, status: 'success', output: '' }),
      ];
    },
    result: (text, usage) => [
      json({ type: 'message', timestamp: now(), role: 'assistant', content: text, delta: true }),
      json({
        type: 'result',
        timestamp: now(),
        status: 'success',
        stats: usage
          ? {
              input_tokens: usage.inputTokens,
              output_tokens: usage.outputTokens,
              cached: usage.cacheReadTokens,
              total_tokens: usage.inputTokens + usage.outputTokens + usage.cacheReadTokens,
            }
          : { total_tokens: 15 },
      }),
    ],
  };
}

/** Plain text: what an agent CLI prints in its text (`-p`) mode. */
function plain(): FormatPrinter {
  return {
    init: () => [],
    say: (text) => [text],
    tool: (name, input) => [`[tool] ${name} ${json(input)}`],
    result: (text) => [text],
  };
}

/** The printer for a format. */
export function formatPrinter(
  format: FakeAgentFormat,
  sessionId: string,
  cwd: string,
  model: string,
): FormatPrinter {
  switch (format) {
    case 'claude-code':
    case 'qwen-code':
      return claudeLike(sessionId, cwd, model);
    case 'codex':
      return codex(sessionId);
    case 'gemini-cli':
      return gemini(sessionId, model);
    case 'text':
      return plain();
  }
}
