import type { HandlerContext } from './handler.js';
import { sendJson, sseEvent, startSse } from './http-util.js';
import type { MockToolCall } from './tool-calls.js';

let seq = 0;

type ChatBase = { id: string; created: number; model: string };

/** A whole (not streamed) Chat Completions reply with one choice. */
export function sendChatCompletion(
  ctx: HandlerContext,
  base: ChatBase,
  message: Record<string, unknown>,
  finish: string,
  usage: Record<string, number>,
): void {
  sendJson(ctx.res, 200, {
    ...base,
    object: 'chat.completion',
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage,
  });
}

/** Starts a streamed Chat Completions reply; returns the sender of its chunks. */
export function startChatStream(ctx: HandlerContext, base: ChatBase) {
  startSse(ctx.res);
  return (delta: Record<string, unknown>, finish: string | null, extra = {}) =>
    sseEvent(ctx.res, {
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...extra,
    });
}

/** An OpenAI Responses reply whose only output is one `function_call` item. */
export function replyResponsesToolCall(ctx: HandlerContext, call: MockToolCall): void {
  const { res, model } = ctx;
  const n = ++seq;
  const args = JSON.stringify(call.input);
  const item = {
    id: `fc_mock_${n}`,
    type: 'function_call',
    status: 'completed',
    call_id: `call_mock_${n}`,
    name: call.name,
    arguments: args,
  };
  const usage = {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 6,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 18,
  };
  const response = {
    id: `resp_mock_tool_${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'completed',
    output: [item],
    usage,
  };
  if (!ctx.stream) {
    sendJson(res, 200, response);
    return;
  }
  startSse(res);
  let sequence = 0;
  const send = (data: Record<string, unknown>) =>
    sseEvent(res, { ...data, sequence_number: sequence++ }, String(data.type));
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  send({ type: 'response.created', response: pending });
  send({ type: 'response.in_progress', response: pending });
  send({
    type: 'response.output_item.added',
    output_index: 0,
    item: { ...item, status: 'in_progress', arguments: '' },
  });
  send({
    type: 'response.function_call_arguments.delta',
    item_id: item.id,
    output_index: 0,
    delta: args,
  });
  send({
    type: 'response.function_call_arguments.done',
    item_id: item.id,
    output_index: 0,
    arguments: args,
  });
  send({ type: 'response.output_item.done', output_index: 0, item });
  send({ type: 'response.completed', response });
  res.end();
}

/** An OpenAI Chat Completions reply that calls one tool (finish reason `tool_calls`). */
export function replyChatToolCall(ctx: HandlerContext, call: MockToolCall): void {
  const { res, model } = ctx;
  const n = ++seq;
  const args = JSON.stringify(call.input);
  const id = `call_mock_${n}`;
  const base = { id: `chatcmpl-mock-tool-${n}`, created: Math.floor(Date.now() / 1000), model };
  const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };
  if (!ctx.stream) {
    sendChatCompletion(
      ctx,
      base,
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: args } }],
      },
      'tool_calls',
      usage,
    );
    return;
  }
  const chunk = startChatStream(ctx, base);
  chunk(
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { index: 0, id, type: 'function', function: { name: call.name, arguments: '' } },
      ],
    },
    null,
  );
  chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }, null);
  chunk({}, 'tool_calls', { usage });
  sseEvent(res, '[DONE]');
  res.end();
}
