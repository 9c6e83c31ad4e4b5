import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalText } from './terminal-text.js';

describe('terminal text', () => {
  it('shows the control characters an agent wrote as escapes, keeping tab, newline and text', () => {
    expect(terminalText('boom \x1b]0;PWNED\x07 \x1b[2J\rgone\b\x9b31m')).toBe(
      'boom \\x1b]0;PWNED\\x07 \\x1b[2J\\x0dgone\\x08\\x9b31m',
    );
    expect(terminalText('abc\u202edcba \u2066x\u2069')).toBe('abc\\u202edcba \\u2066x\\u2069');
    expect(terminalText('a\tb\nc — ✓ 日本')).toBe('a\tb\nc — ✓ 日本');
  });

  it('maps every string of plain data and leaves the original alone', () => {
    const event = { type: 'task.blocked', evidence: ['x\x1b[2J'], counts: { n: 1 }, ok: true };
    expect(terminalSafe(event)).toEqual({
      type: 'task.blocked',
      evidence: ['x\\x1b[2J'],
      counts: { n: 1 },
      ok: true,
    });
    expect(event.evidence[0]).toBe('x\x1b[2J');
  });
});
