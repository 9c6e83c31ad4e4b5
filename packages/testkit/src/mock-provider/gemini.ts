import { type HandlerContext, replyWithFault } from './handler.js';
import { cutConnection, cutJsonReply, deltas, sendJson, startSse } from './http-util.js';
import { type MockToolCall, scriptedToolCall } from './tool-calls.js';

function candidate(text: string, done: boolean) {
  return {
    candidates: [
      {
        content: { role: 'model', parts: [{ text }] },
        index: 0,
        ...(done ? { finishReason: 'STOP' } : {}),
      },
    ],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
  };
}

/** A reply whose only part is one `functionCall`. */
function replyWithFunctionCall(ctx: HandlerContext, call: MockToolCall, sse: boolean): void {
  const reply = {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [{ functionCall: { name: call.name, args: call.input } }],
        },
        index: 0,
        finishReason: 'STOP',
      },
    ],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
    modelVersion: ctx.model,
  };
  if (!ctx.stream) {
    sendJson(ctx.res, 200, reply);
    return;
  }
  if (sse) {
    startSse(ctx.res);
    ctx.res.write(`data: ${JSON.stringify(reply)}\r\n\r\n`);
  } else {
    ctx.res.writeHead(200, { 'content-type': 'application/json' });
    ctx.res.write(`[${JSON.stringify(reply)}]`);
  }
  ctx.res.end();
}

/**
 * Gemini `models/{model}:generateContent` and `:streamGenerateContent` (`?alt=sse` or JSON
 * array). Returns the name of the tool the reply called when a scripted tool call applied.
 */
export function handleGemini(ctx: HandlerContext, sse: boolean): string | undefined {
  if (replyWithFault(ctx, 'gemini')) return undefined;
  const call =
    ctx.fault === 'none' ? scriptedToolCall('gemini', ctx.body, ctx.toolCalls) : undefined;
  if (call) {
    replyWithFunctionCall(ctx, call, sse);
    return call.name;
  }
  replyWithText(ctx, sse);
  return undefined;
}

function replyWithText(ctx: HandlerContext, sse: boolean): void {
  const { res, replyText } = ctx;
  const modelVersion = ctx.model;
  if (!ctx.stream) {
    if (ctx.fault === 'stream-cut') {
      cutJsonReply(res, '{"candidates":[{"content":{"role":"model","parts":[{"te');
      return;
    }
    sendJson(res, 200, { ...candidate(replyText, true), modelVersion });
    return;
  }
  const parts = deltas(replyText);
  const sent = ctx.fault === 'stream-cut' ? parts.slice(0, Math.max(1, parts.length >> 1)) : parts;
  if (sse) {
    startSse(res);
    sent.forEach((text, i) => {
      const last = i === parts.length - 1;
      res.write(`data: ${JSON.stringify({ ...candidate(text, last), modelVersion })}\r\n\r\n`);
    });
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    sent.forEach((text, i) => {
      const last = i === parts.length - 1;
      res.write(
        `${i > 0 ? ',\n' : ''}${JSON.stringify({ ...candidate(text, last), modelVersion })}`,
      );
    });
    if (ctx.fault !== 'stream-cut') res.write(']');
  }
  if (ctx.fault === 'stream-cut') {
    cutConnection(res);
    return;
  }
  res.end();
}

/** `models/{model}:countTokens`. */
export function handleGeminiCountTokens(ctx: HandlerContext): void {
  if (replyWithFault(ctx, 'gemini')) return;
  sendJson(ctx.res, 200, { totalTokens: 12 });
}
