import { describe, expect, it } from 'vitest';
import { evidenceMessage } from './evidence-message.js';

describe('evidenceMessage', () => {
  it('shows the message of a JSON event line, not the raw object', () => {
    const line = JSON.stringify({
      type: 'result',
      subtype: 'error_during_execution',
      duration_api_ms: 0,
      result: 'Tool permission request failed',
    });
    expect(evidenceMessage(line)).toBe('Tool permission request failed');
    expect(evidenceMessage('{"type":"turn.failed","error":{"message":"401 Unauthorized"}}')).toBe(
      '401 Unauthorized',
    );
  });

  it('keeps the prefix of a line that ends in a JSON error body', () => {
    expect(
      evidenceMessage(
        'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      ),
    ).toBe('API Error: 401 invalid x-api-key');
  });

  it('returns any other line as it is', () => {
    expect(evidenceMessage('TypeError: x is undefined')).toBe('TypeError: x is undefined');
    expect(evidenceMessage('not json {at all}')).toBe('not json {at all}');
    expect(evidenceMessage('{"type":"result"}')).toBe('{"type":"result"}');
  });
});
