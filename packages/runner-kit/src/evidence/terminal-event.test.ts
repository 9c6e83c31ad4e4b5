import { describe, expect, it } from 'vitest';
import { detectTerminalEvent, terminalReason } from './terminal-event.js';

describe('terminalReason', () => {
  it.each([
    [{ type: 'error', message: 'boom' }, 'type=error'],
    [{ type: 'turn.failed', error: { message: 'x' } }, 'type=turn.failed'],
    [{ type: 'stream_error' }, 'type=stream_error'],
    [{ event: 'fatal' }, 'type=fatal'],
    [{ type: 'result', subtype: 'error_during_execution' }, 'subtype=error_during_execution'],
    [{ type: 'log', severity: 'error', msg: 'x' }, 'severity=error'],
    [{ level: 'FATAL' }, 'severity=FATAL'],
    [
      { type: 'response', status: 'failed', error: { code: 'rate_limit_exceeded' } },
      'status=failed+code',
    ],
    [{ status: 'rejected', code: 429 }, 'status=rejected+code'],
    [{ type: 'result', subtype: 'success', is_error: true }, 'is_error=true'],
    [{ type: 'result', error: { type: 'overloaded_error' } }, 'error-object'],
  ])('recognises %j', (event, reason) => {
    expect(terminalReason(event)).toBe(reason);
  });

  it.each([
    { type: 'assistant', message: { content: 'the error rate limit is quota exceeded' } },
    { type: 'result', subtype: 'success', is_error: false },
    { type: 'log', severity: 'warning' },
    { status: 'failed' },
    { type: 'tool_result', status: 'error', error: { type: 'ENOENT' } },
    { type: 'error_tool_call_failed' },
    { type: 'item.completed', item: { type: 'error', message: 'nested' } },
    { error: null },
  ])('ignores %j', (event) => {
    expect(terminalReason(event)).toBeUndefined();
  });

  it('keeps line number and raw text', () => {
    const raw = '{"type":"error","message":"x"}';
    const event = detectTerminalEvent(JSON.parse(raw), 7, raw);
    expect(event).toEqual({ line: 7, raw, event: JSON.parse(raw), reason: 'type=error' });
  });
});
