import { describe, expect, it } from 'vitest';
import { formatStreamJsonEvent } from './stream-json-transcript.js';

describe('formatStreamJsonEvent', () => {
  it('prints every content block of an assistant/user event on its own line', () => {
    const event = {
      type: 'assistant',
      message: {
        content: [
          { type: 'thinking', thinking: 'plan' },
          { type: 'text', text: 'I will run the tests.' },
          { type: 'image', source: {} },
          { type: 'tool_use', name: 'Bash', input: { command: 'npm test' } },
        ],
      },
    };
    expect(formatStreamJsonEvent(event)).toBe(
      'thinking: plan\nassistant: I will run the tests.\ntool Bash: {"command":"npm test"}',
    );
  });

  it('cuts long tool results and marks failed ones', () => {
    const event = {
      type: 'user',
      message: { content: [{ type: 'tool_result', is_error: true, content: 'x'.repeat(300) }] },
    };
    expect(formatStreamJsonEvent(event)).toBe(`tool result (error): ${'x'.repeat(200)}…`);
  });

  it('skips events with nothing to print', () => {
    expect(formatStreamJsonEvent({ type: 'assistant', message: { content: [] } })).toBeUndefined();
    expect(
      formatStreamJsonEvent({ type: 'user', message: { content: [{ type: 'image' }] } }),
    ).toBeUndefined();
    expect(formatStreamJsonEvent({ type: 'assistant' })).toBeUndefined();
    expect(formatStreamJsonEvent({ type: 'stream_event' })).toBeUndefined();
  });
});
