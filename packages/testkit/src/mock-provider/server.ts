import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAnthropicCountTokens, handleAnthropicMessages } from './anthropic.js';
import { isMockFault, type MockFault, type MockProtocol } from './faults.js';
import { handleGemini, handleGeminiCountTokens } from './gemini.js';
import type { HandlerContext } from './handler.js';
import { readJsonBody, sendJson } from './http-util.js';
import { handleOpenAiChat, handleOpenAiModels, handleOpenAiResponses } from './openai.js';
import type { MockToolCall } from './tool-calls.js';

export interface MockProviderOptions {
  /** Fault for requests that don't choose one by path or header (default `none`). */
  fault?: MockFault;
  /** Seconds announced by `retry-after` on 429 replies (default 30). */
  retryAfterSeconds?: number;
  /** Assistant text of successful replies. */
  replyText?: string;
  /** Port to bind on 127.0.0.1 (default 0: a free port). */
  port?: number;
  /**
   * Tool calls to make instead of a text reply (Anthropic Messages only): the first whose
   * `when` text is in the conversation and whose tool the request offers; once the tool's
   * result comes back, the reply is `replyText`.
   */
  toolCalls?: readonly MockToolCall[];
}

/** One request the mock answered. */
export interface MockRequest {
  method: string;
  path: string;
  protocol: MockProtocol | 'unknown';
  fault: MockFault;
  model: string;
  stream: boolean;
  /** Name of the tool the reply called, when it was a scripted tool call. */
  toolCall?: string;
}

export interface MockProvider {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** Base URL whose requests all get `fault`: `http://127.0.0.1:PORT/fault/<fault>`. */
  urlFor(fault: MockFault): string;
  /** Changes the default fault. */
  setFault(fault: MockFault): void;
  readonly requests: readonly MockRequest[];
  close(): Promise<void>;
}

const FAULT_PREFIX = /^\/fault\/([a-z-]+)(\/.*)?$/;
const GEMINI = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

function route(path: string): { protocol: MockProtocol | 'unknown'; op: string; model?: string } {
  const gemini = GEMINI.exec(path);
  if (gemini) return { protocol: 'gemini', op: gemini[2]!, model: decodeURIComponent(gemini[1]!) };
  if (path.endsWith('/messages/count_tokens')) return { protocol: 'anthropic', op: 'count' };
  if (path.endsWith('/messages')) return { protocol: 'anthropic', op: 'messages' };
  if (path.endsWith('/responses')) return { protocol: 'openai-responses', op: 'responses' };
  if (path.endsWith('/chat/completions')) return { protocol: 'openai-chat', op: 'chat' };
  if (path.endsWith('/models')) return { protocol: 'openai-chat', op: 'models' };
  return { protocol: 'unknown', op: 'unknown' };
}

/**
 * Starts a mock LLM provider on 127.0.0.1 speaking Anthropic Messages, OpenAI Responses and
 * Chat Completions, and Gemini, with fault injection. A request picks its fault by path prefix
 * (`/fault/rate-limit/v1/messages`), by `x-mock-fault` header, or gets the default.
 */
export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  let defaultFault: MockFault = options.fault ?? 'none';
  const requests: MockRequest[] = [];
  const models = new Set<string>(['mock-model']);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const { path, fault } = faultOf(req, url.pathname, defaultFault);
    const body = req.method === 'POST' ? await readJsonBody(req) : {};
    const r = route(path);
    const model = r.model ?? (typeof body.model === 'string' ? body.model : 'mock-model');
    models.add(model);
    const stream = r.op === 'streamGenerateContent' || body.stream === true;
    const record: MockRequest = {
      method: req.method ?? 'GET',
      path,
      protocol: r.protocol,
      fault,
      model,
      stream,
    };
    requests.push(record);
    const ctx: HandlerContext = {
      res,
      body,
      fault,
      model,
      stream,
      replyText: options.replyText ?? 'Hello from the mock provider. The task is done.',
      retryAfterSeconds: options.retryAfterSeconds ?? 30,
      toolCalls: options.toolCalls ?? [],
    };
    // `hang`: accept the request and never answer (the client's cancel or timeout ends it)
    if (fault === 'hang' && r.op !== 'models') return;
    const toolCall = reply(r.op, ctx, [...models], url, `${req.method} ${path}`);
    if (toolCall) record.toolCall = toolCall;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    urlFor: (fault) => `${url}/fault/${fault}`,
    setFault: (fault) => {
      defaultFault = fault;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fault of a request: its path prefix (`/fault/<fault>/…`, removed), its header, or the default. */
function faultOf(
  req: IncomingMessage,
  pathname: string,
  defaultFault: MockFault,
): { path: string; fault: MockFault } {
  let path = pathname;
  let fault = defaultFault;
  const prefixed = FAULT_PREFIX.exec(path);
  if (prefixed && isMockFault(prefixed[1]!)) {
    fault = prefixed[1];
    path = prefixed[2] ?? '/';
  }
  const header = req.headers['x-mock-fault'];
  if (typeof header === 'string' && isMockFault(header)) fault = header;
  return { path, fault };
}

/** Answers a routed request; returns the tool call the reply asked for, if any. */
function reply(
  op: string,
  ctx: HandlerContext,
  models: string[],
  url: URL,
  request: string,
): string | undefined {
  switch (op) {
    case 'messages': {
      return handleAnthropicMessages(ctx);
    }
    case 'count':
      handleAnthropicCountTokens(ctx);
      return undefined;
    case 'responses': {
      return handleOpenAiResponses(ctx);
    }
    case 'chat': {
      return handleOpenAiChat(ctx);
    }
    case 'models':
      handleOpenAiModels(ctx, models);
      return undefined;
    case 'countTokens':
      handleGeminiCountTokens(ctx);
      return undefined;
    case 'generateContent':
    case 'streamGenerateContent': {
      return handleGemini(ctx, url.searchParams.get('alt') === 'sse');
    }
    default:
      sendJson(ctx.res, 404, { error: { message: `mock provider: no route for ${request}` } });
      return undefined;
  }
}

/** A URL on 127.0.0.1 where nothing listens: connecting is refused (the port was just freed). */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
