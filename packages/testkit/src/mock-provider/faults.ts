/** Provider faults the mock provider can inject, plus `none` for a normal reply. */
export const MOCK_FAULTS = [
  'none',
  'rate-limit',
  'quota',
  'overloaded',
  'prompt-too-long',
  'unknown-model',
  'unauthorized',
  'server-error',
  'stream-cut',
  'hang',
] as const;

export type MockFault = (typeof MOCK_FAULTS)[number];

/** The wire protocols the mock speaks. */
export type MockProtocol = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini';

export function isMockFault(value: string): value is MockFault {
  return (MOCK_FAULTS as readonly string[]).includes(value);
}

/** An HTTP error reply: status, extra headers and the JSON body a real provider sends. */
export interface FaultReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

interface FaultText {
  status: number;
  anthropicType: string;
  openaiType: string;
  openaiCode: string | null;
  geminiStatus: string;
  message: (model: string) => string;
}

// Messages mirror what the real providers return for each fault, so the CLIs print what
// they would print in production.
const FAULTS: Record<Exclude<MockFault, 'none' | 'stream-cut' | 'hang'>, FaultText> = {
  'rate-limit': {
    status: 429,
    anthropicType: 'rate_limit_error',
    openaiType: 'requests',
    openaiCode: 'rate_limit_exceeded',
    geminiStatus: 'RESOURCE_EXHAUSTED',
    message: () =>
      'Rate limit reached: you have exceeded your request quota. Please try again in 30s.',
  },
  // 429 for a spent quota (billing/plan), not a per-minute rate: no retry-after.
  quota: {
    status: 429,
    anthropicType: 'rate_limit_error',
    openaiType: 'insufficient_quota',
    openaiCode: 'insufficient_quota',
    geminiStatus: 'RESOURCE_EXHAUSTED',
    message: () => 'You exceeded your current quota, please check your plan and billing details.',
  },
  overloaded: {
    status: 529,
    anthropicType: 'overloaded_error',
    openaiType: 'server_error',
    openaiCode: 'server_is_overloaded',
    geminiStatus: 'UNAVAILABLE',
    message: () => 'Overloaded: the model is currently overloaded. Please try again later.',
  },
  'prompt-too-long': {
    status: 400,
    anthropicType: 'invalid_request_error',
    openaiType: 'invalid_request_error',
    openaiCode: 'context_length_exceeded',
    geminiStatus: 'INVALID_ARGUMENT',
    message: () =>
      'prompt is too long: 250000 tokens > 200000 maximum. Your input exceeds the context window of this model (maximum context length is 200000 tokens).',
  },
  'unknown-model': {
    status: 404,
    anthropicType: 'not_found_error',
    openaiType: 'invalid_request_error',
    openaiCode: 'model_not_found',
    geminiStatus: 'NOT_FOUND',
    message: (model) => `model: ${model} does not exist or you do not have access to it.`,
  },
  unauthorized: {
    status: 401,
    anthropicType: 'authentication_error',
    openaiType: 'invalid_request_error',
    openaiCode: 'invalid_api_key',
    geminiStatus: 'UNAUTHENTICATED',
    message: () => 'invalid x-api-key: Incorrect API key provided.',
  },
  'server-error': {
    status: 500,
    anthropicType: 'api_error',
    openaiType: 'server_error',
    openaiCode: null,
    geminiStatus: 'INTERNAL',
    message: () => 'Internal server error',
  },
};

/** The error reply for a fault in one protocol, or undefined for `none`/`stream-cut`/`hang`. */
export function faultReply(
  fault: MockFault,
  protocol: MockProtocol,
  model: string,
  retryAfterSeconds: number,
): FaultReply | undefined {
  if (fault === 'none' || fault === 'stream-cut' || fault === 'hang') return undefined;
  const f = FAULTS[fault];
  const message = f.message(model);
  // 529 is Anthropic's overloaded status; the others answer 503 for the same condition.
  const status = fault === 'overloaded' && protocol !== 'anthropic' ? 503 : f.status;
  const headers: Record<string, string> =
    fault === 'rate-limit' ? { 'retry-after': String(retryAfterSeconds) } : {};
  if (protocol === 'anthropic') {
    return {
      status,
      headers: { ...headers, 'request-id': 'req_mock' },
      body: { type: 'error', error: { type: f.anthropicType, message } },
    };
  }
  if (protocol === 'gemini') {
    const details =
      fault === 'rate-limit'
        ? [
            {
              '@type': 'type.googleapis.com/google.rpc.RetryInfo',
              retryDelay: `${retryAfterSeconds}s`,
            },
          ]
        : [];
    return {
      status,
      headers,
      body: { error: { code: status, message, status: f.geminiStatus, details } },
    };
  }
  return {
    status,
    headers,
    body: { error: { message, type: f.openaiType, param: null, code: f.openaiCode } },
  };
}
