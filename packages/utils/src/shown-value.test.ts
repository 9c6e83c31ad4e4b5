import { describe, expect, it } from 'vitest';
import { MAX_SHOWN_VALUE, shownSource, shownValue } from './shown-value.js';

describe('shownValue: the offending value a problem shows', () => {
  it('is JSON text, and nothing for a missing value', () => {
    expect(shownValue('three')).toBe('"three"');
    expect(shownValue(-1)).toBe('-1');
    expect(shownValue(null)).toBe('null');
    expect(shownValue({ mode: 'bwrap' })).toBe('{"mode":"bwrap"}');
    expect(shownValue(undefined)).toBeUndefined();
    expect(shownValue(() => 1)).toBe('(a function)');
  });

  it('is cut to a bounded length, and safe to print', () => {
    const long = shownValue('y'.repeat(10_000)) ?? '';
    expect(long).toHaveLength(MAX_SHOWN_VALUE);
    expect(long.endsWith('…')).toBe(true);
    expect(shownValue('a\u001b[2Jb\u202e')).toBe('"a\\u001b[2Jb\\u202e"');
    // never half a surrogate pair
    const emoji = shownValue(`${'x'.repeat(MAX_SHOWN_VALUE - 3)}😀😀`) ?? '';
    expect(emoji).toMatch(/x…$/);
  });

  it('redacts a secret by the name of its key or by its shape, also inside an object', () => {
    expect(shownValue(12345678, 'apiKey')).toBe('(redacted)');
    expect(shownValue('x', 'X-Api-Token')).toBe('(redacted)');
    expect(shownValue('Basic dXNlcjpwYXNzd29yZA==', 'headers')).toBe('(redacted)');
    expect(shownValue('postgres://u:hunter2@db/sy')).toBe('(redacted)');
    const inner = shownValue({ url: 'https://h', headers: { Authorization: 'x', Accept: 'y' } });
    expect(inner).toBe('{"url":"https://h","headers":{"Authorization":"(redacted)","Accept":"y"}}');
    expect(shownValue(['run', '--token=abc'])).toBe('["run","(redacted)"]');
    // a word that only looks like a credential's
    expect(shownValue(30, 'leaseSeconds')).toBe('30');
  });

  it('shows a value that contains itself without failing', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(shownValue(loop)).toBe('(an object that contains itself)');
  });
});

describe('shownSource: the text at a syntax error', () => {
  it('is the trimmed line, nothing for a blank one, redacted when it holds a secret', () => {
    expect(shownSource('  "retry": }  ')).toBe('"retry": }');
    expect(shownSource('   ')).toBeUndefined();
    expect(shownSource('  password: hunter2 [')).toBe('(redacted)');
    expect(shownSource('"apiKey": "x",,')).toBe('(redacted)');
    expect(shownSource('url: postgres://u:hunter2@db/sy }')).toBe('(redacted)');
  });
});
