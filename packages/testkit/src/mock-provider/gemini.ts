import { type HandlerContext, replyWithFault } from './handler.js';
import { cutConnection, deltas, sendJson, startSse } from './http-util.js';

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

/** Gemini `models/{model}:generateContent` and `:streamGenerateContent` (`?alt=sse` or JSON array). */
export function handleGemini(ctx: HandlerContext, sse: boolean): void {
  if (replyWithFault(ctx, 'gemini')) return;
  const { res, replyText } = ctx;
  const modelVersion = ctx.model;
  if (!ctx.stream) {
    if (ctx.fault === 'stream-cut') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"candidates":[{"content":{"role":"model","parts":[{"te');
      cutConnection(res);
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
