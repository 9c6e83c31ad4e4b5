import { type HandlerContext, replyWithFault } from './handler.js';
import { cutConnection, cutJsonReply, deltas, sendJson, sseEvent, startSse } from './http-util.js';
import { anthropicToolCall, type MockToolCall } from './tool-calls.js';

const usage = {
  input_tokens: 12,
  output_tokens: 6,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/**
 * Anthropic Messages API (`POST /v1/messages`), JSON or SSE. Returns the name of the tool the
 * reply called when a scripted tool call applied.
 */
export function handleAnthropicMessages(ctx: HandlerContext): string | undefined {
  if (replyWithFault(ctx, 'anthropic')) return undefined;
  const call = ctx.fault === 'none' ? anthropicToolCall(ctx.body, ctx.toolCalls) : undefined;
  if (call) {
    replyWithToolUse(ctx, call);
    return call.name;
  }
  replyWithText(ctx);
  return undefined;
}

let toolUseSeq = 0;

/** A reply whose only content is one `tool_use` block (stop reason `tool_use`). */
function replyWithToolUse(ctx: HandlerContext, call: MockToolCall): void {
  const { res, model } = ctx;
  const block = { type: 'tool_use', id: `toolu_mock_${++toolUseSeq}`, name: call.name };
  const message = {
    id: `msg_mock_tool_${toolUseSeq}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [] as unknown[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage,
  };
  if (!ctx.stream) {
    const done = {
      ...message,
      content: [{ ...block, input: call.input }],
      stop_reason: 'tool_use',
    };
    sendJson(res, 200, done, { 'request-id': 'req_mock' });
    return;
  }
  startSse(res);
  sseEvent(res, { type: 'message_start', message }, 'message_start');
  sseEvent(
    res,
    { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } },
    'content_block_start',
  );
  sseEvent(
    res,
    {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
    },
    'content_block_delta',
  );
  sseEvent(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  sseEvent(
    res,
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 6 },
    },
    'message_delta',
  );
  sseEvent(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

function replyWithText(ctx: HandlerContext): void {
  const { res, model, replyText } = ctx;
  const message = {
    id: 'msg_mock_01',
    type: 'message',
    role: 'assistant',
    model,
    content: [] as unknown[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage,
  };
  if (!ctx.stream) {
    if (ctx.fault === 'stream-cut') {
      cutJsonReply(
        res,
        '{"id":"msg_mock_01","type":"message","content":[{"type":"text","text":"Hal',
      );
      return;
    }
    const done = {
      ...message,
      content: [{ type: 'text', text: replyText }],
      stop_reason: 'end_turn',
    };
    sendJson(res, 200, done, { 'request-id': 'req_mock' });
    return;
  }
  startSse(res);
  sseEvent(res, { type: 'message_start', message }, 'message_start');
  sseEvent(
    res,
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    'content_block_start',
  );
  sseEvent(res, { type: 'ping' }, 'ping');
  const parts = deltas(replyText);
  const sent = ctx.fault === 'stream-cut' ? parts.slice(0, Math.max(1, parts.length >> 1)) : parts;
  for (const text of sent) {
    sseEvent(
      res,
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
      'content_block_delta',
    );
  }
  if (ctx.fault === 'stream-cut') {
    cutConnection(res);
    return;
  }
  sseEvent(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  sseEvent(
    res,
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 6 },
    },
    'message_delta',
  );
  sseEvent(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

/** `POST /v1/messages/count_tokens`. */
export function handleAnthropicCountTokens(ctx: HandlerContext): void {
  if (replyWithFault(ctx, 'anthropic')) return;
  sendJson(ctx.res, 200, { input_tokens: 12 });
}
