import type { ServerResponse } from 'node:http';
import { faultReply, type MockFault, type MockProtocol } from './faults.js';
import { sendJson } from './http-util.js';
import type { MockToolCall } from './tool-calls.js';

/** What a protocol handler gets for one request. */
export interface HandlerContext {
  res: ServerResponse;
  body: Record<string, unknown>;
  fault: MockFault;
  model: string;
  stream: boolean;
  replyText: string;
  retryAfterSeconds: number;
  toolCalls: readonly MockToolCall[];
}

/** Sends the fault's error reply when the fault is an HTTP error; true when it did. */
export function replyWithFault(ctx: HandlerContext, protocol: MockProtocol): boolean {
  const reply = faultReply(ctx.fault, protocol, ctx.model, ctx.retryAfterSeconds);
  if (reply === undefined) return false;
  sendJson(ctx.res, reply.status, reply.body, reply.headers);
  return true;
}
