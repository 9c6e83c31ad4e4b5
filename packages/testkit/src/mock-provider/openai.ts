import { type HandlerContext, replyWithFault } from './handler.js';
import { cutConnection, cutJsonReply, deltas, sendJson, sseEvent, startSse } from './http-util.js';
import {
  replyChatToolCall,
  replyResponsesToolCall,
  sendChatCompletion,
  startChatStream,
} from './openai-tools.js';
import { scriptedToolCall } from './tool-calls.js';

function half<T>(items: T[], cut: boolean): T[] {
  return cut ? items.slice(0, Math.max(1, items.length >> 1)) : items;
}

/**
 * OpenAI Responses API (`POST /v1/responses`), JSON or SSE. Returns the name of the tool the
 * reply called when a scripted tool call applied.
 */
export function handleOpenAiResponses(ctx: HandlerContext): string | undefined {
  if (replyWithFault(ctx, 'openai-responses')) return undefined;
  const call =
    ctx.fault === 'none'
      ? scriptedToolCall('openai-responses', ctx.body, ctx.toolCalls)
      : undefined;
  if (call) {
    replyResponsesToolCall(ctx, call);
    return call.name;
  }
  replyResponsesText(ctx);
  return undefined;
}

function replyResponsesText(ctx: HandlerContext): void {
  const { res } = ctx;
  const { item, response } = responsesText(ctx.model, ctx.replyText);
  if (!ctx.stream) {
    if (ctx.fault === 'stream-cut') {
      cutJsonReply(res, '{"id":"resp_mock_01","object":"response","output":[{"type":"mess');
      return;
    }
    sendJson(res, 200, response);
    return;
  }
  streamResponsesText(ctx, item, response);
}

/** A finished Responses API reply carrying `replyText`, and its one message item. */
function responsesText(model: string, replyText: string) {
  const created = Math.floor(Date.now() / 1000);
  const item = {
    id: 'msg_mock_01',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: replyText, annotations: [] }],
  };
  const usage = {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 6,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 18,
  };
  const response = {
    id: 'resp_mock_01',
    object: 'response',
    created_at: created,
    model,
    status: 'completed',
    output: [item],
    usage,
  };
  return { item, response };
}

/** The reply as Responses API server-sent events; `stream-cut` ends it halfway through the text. */
function streamResponsesText(
  ctx: HandlerContext,
  item: ReturnType<typeof responsesText>['item'],
  response: ReturnType<typeof responsesText>['response'],
): void {
  const { res, replyText } = ctx;
  startSse(res);
  let seq = 0;
  const send = (data: Record<string, unknown>) =>
    sseEvent(res, { ...data, sequence_number: seq++ }, String(data.type));
  send({
    type: 'response.created',
    response: { ...response, status: 'in_progress', output: [], usage: null },
  });
  send({
    type: 'response.in_progress',
    response: { ...response, status: 'in_progress', output: [], usage: null },
  });
  send({
    type: 'response.output_item.added',
    output_index: 0,
    item: { ...item, status: 'in_progress', content: [] },
  });
  send({
    type: 'response.content_part.added',
    item_id: item.id,
    output_index: 0,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  for (const delta of half(deltas(replyText), ctx.fault === 'stream-cut')) {
    send({
      type: 'response.output_text.delta',
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta,
    });
  }
  if (ctx.fault === 'stream-cut') {
    cutConnection(res);
    return;
  }
  send({
    type: 'response.output_text.done',
    item_id: item.id,
    output_index: 0,
    content_index: 0,
    text: replyText,
  });
  send({
    type: 'response.content_part.done',
    item_id: item.id,
    output_index: 0,
    content_index: 0,
    part: item.content[0],
  });
  send({ type: 'response.output_item.done', output_index: 0, item });
  send({ type: 'response.completed', response });
  res.end();
}

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), JSON or SSE. Returns the name of the
 * tool the reply called when a scripted tool call applied.
 */
export function handleOpenAiChat(ctx: HandlerContext): string | undefined {
  if (replyWithFault(ctx, 'openai-chat')) return undefined;
  const call =
    ctx.fault === 'none' ? scriptedToolCall('openai-chat', ctx.body, ctx.toolCalls) : undefined;
  if (call) {
    replyChatToolCall(ctx, call);
    return call.name;
  }
  replyChatText(ctx);
  return undefined;
}

function replyChatText(ctx: HandlerContext): void {
  const { res, model, replyText } = ctx;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };
  const base = { id: 'chatcmpl-mock01', created, model };
  if (!ctx.stream) {
    if (ctx.fault === 'stream-cut') {
      cutJsonReply(
        res,
        '{"id":"chatcmpl-mock01","object":"chat.completion","choices":[{"index":0,"mes',
      );
      return;
    }
    sendChatCompletion(ctx, base, { role: 'assistant', content: replyText }, 'stop', usage);
    return;
  }
  const chunk = startChatStream(ctx, base);
  chunk({ role: 'assistant', content: '' }, null);
  for (const content of half(deltas(replyText), ctx.fault === 'stream-cut'))
    chunk({ content }, null);
  if (ctx.fault === 'stream-cut') {
    cutConnection(res);
    return;
  }
  chunk({}, 'stop', { usage });
  sseEvent(res, '[DONE]');
  res.end();
}

/** `GET /v1/models`: one model per requested name is enough for the CLIs' model probes. */
export function handleOpenAiModels(ctx: HandlerContext, models: string[]): void {
  if (replyWithFault(ctx, 'openai-chat')) return;
  sendJson(ctx.res, 200, {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'mock' })),
  });
}
