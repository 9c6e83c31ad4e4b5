import captured from './captured-faults.json' with { type: 'json' };
import type { FakeAgentFormat, FakeFault } from './scenario.js';

/** What a CLI prints for a provider fault: stdout lines, stderr lines, exit code. */
export interface FaultOutput {
  stdout: string[];
  stderr: string[];
  exitCode: number;
}

/** The provider's error message per fault (Anthropic/OpenAI wording). */
const MESSAGES: Record<FakeFault, { status: number; type: string; message: string }> = {
  quota: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your per-minute rate limit',
  },
  overloaded: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
  'context-limit': {
    status: 400,
    type: 'invalid_request_error',
    message: 'prompt is too long: 210000 tokens > 200000 maximum',
  },
  'model-unavailable': { status: 404, type: 'not_found_error', message: 'model: no-such-model' },
  auth: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' },
  'server-error': { status: 500, type: 'api_error', message: 'Internal server error' },
  'stream-disconnect': {
    status: 0,
    type: 'stream_error',
    message: 'stream disconnected before completion: error decoding response body',
  },
  connection: { status: 0, type: 'connection_error', message: 'Connection error.' },
};

const json = (value: unknown): string => JSON.stringify(value);

function apiError(fault: FakeFault): string {
  const m = MESSAGES[fault];
  if (m.status === 0) return `API Error: ${m.message}`;
  return `API Error: ${m.status} ${json({ type: 'error', error: { type: m.type, message: m.message } })}`;
}

/** Fault names of the real-CLI captures (test/agent-contract/fixtures). */
const CAPTURE_NAMES: Record<FakeFault, string> = {
  quota: 'rate-limit',
  overloaded: 'overloaded',
  'context-limit': 'prompt-too-long',
  'model-unavailable': 'unknown-model',
  auth: 'unauthorized',
  'server-error': 'server-error',
  'stream-disconnect': 'stream-cut',
  connection: 'connection-refused',
};

interface Capture {
  session: string | null;
  stdout: string[];
  stderr: string[];
  exitCode: number;
}

/**
 * What the real CLI printed for this fault, captured against the mock provider
 * (`scripts/import-captures.mjs` imports them): the CLI is the format itself for JSONL
 * formats, `textOf` for `text`. The captured session id is replaced by the fake agent's.
 * Undefined when no capture exists.
 */
export function capturedFault(
  format: FakeAgentFormat,
  fault: FakeFault,
  sessionId: string,
  textOf = 'claude-code',
): FaultOutput | undefined {
  const cli = format === 'text' ? textOf : format;
  const mode = format === 'text' ? 'text' : 'jsonl';
  const capture = (captured as Record<string, Capture>)[`${cli}/${mode}/${CAPTURE_NAMES[fault]}`];
  if (!capture) return undefined;
  const swap = (line: string) =>
    capture.session ? line.replaceAll(capture.session, sessionId) : line;
  return {
    stdout: capture.stdout.map(swap),
    stderr: capture.stderr.map(swap),
    exitCode: capture.exitCode,
  };
}

/** Fault output: the real CLI's captured output when there is one, else a template. */
export function faultOutput(
  format: FakeAgentFormat,
  fault: FakeFault,
  sessionId: string,
  textOf?: string,
): FaultOutput {
  return capturedFault(format, fault, sessionId, textOf) ?? templateFault(format, fault, sessionId);
}

/** A fault in the CLI's shape (from its documented error formats), for faults without a capture. */
export function templateFault(
  format: FakeAgentFormat,
  fault: FakeFault,
  sessionId: string,
): FaultOutput {
  const m = MESSAGES[fault];
  switch (format) {
    case 'claude-code':
    case 'qwen-code':
      return {
        stdout: [
          json({
            type: 'result',
            subtype: 'success',
            is_error: true,
            result: apiError(fault),
            session_id: sessionId,
          }),
        ],
        stderr: [],
        exitCode: 1,
      };
    case 'codex': {
      const message =
        m.status === 0
          ? m.message
          : `unexpected status ${m.status} ${statusText(m.status)}: ${json({ error: { type: m.type, message: m.message } })}`;
      return {
        stdout: [
          json({ type: 'error', message }),
          json({ type: 'turn.failed', error: { message } }),
        ],
        stderr: [],
        exitCode: 1,
      };
    }
    case 'gemini-cli':
      return {
        stdout: [
          json({
            type: 'error',
            timestamp: new Date().toISOString(),
            severity: 'error',
            message: m.status === 0 ? m.message : `[API Error: ${m.message}] (status ${m.status})`,
          }),
          json({
            type: 'result',
            timestamp: new Date().toISOString(),
            status: 'error',
            error: { type: m.type, message: m.message },
          }),
        ],
        stderr: [],
        exitCode: 1,
      };
    case 'text':
      return { stdout: [], stderr: [apiError(fault)], exitCode: 1 };
  }
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    404: 'Not Found',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    529: 'Site Overloaded',
  };
  return texts[status] ?? '';
}

/** The retry announcement a CLI prints while it retries a provider fault internally. */
export function defaultRetryLine(format: FakeAgentFormat, attempt: number): string {
  if (format === 'codex')
    return `stream error: error sending request; retrying ${attempt}/5 in 2s…`;
  return `API Error (Connection error.) · Retrying in 2 seconds… (attempt ${attempt}/10)`;
}
