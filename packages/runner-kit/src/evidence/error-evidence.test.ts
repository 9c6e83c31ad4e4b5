import { describe, expect, it } from 'vitest';
import { httpStatusesIn, isObjectDumpLine, isStackFrame } from './error-evidence.js';

describe('httpStatusesIn', () => {
  it.each([
    ['API Error: 429 {"type":"error"}', [429]],
    ['[API Error: 503 Overloaded: the model is currently overloaded.]', [503]],
    ['API Error: Request rejected (429) · Rate limit reached', [429]],
    ['ERROR: exceeded retry limit, last status: 429 Too Many Requests', [429]],
    ['unexpected status 401 Unauthorized: invalid x-api-key', [401]],
    ["Model 'gpt-4.1' not found on provider at http://x/v1 (HTTP 404).", [404]],
    ['Last error: 500 Internal server error', [500]],
    ['  status: 429', [429]],
    ['    code: 404,', [404]],
    ['{"statusCode":503}', [503]],
  ])('reads the status a carrier states: %s', (line, expected) => {
    expect(httpStatusesIn(line)).toEqual(expected);
  });

  it.each([
    ['      bytesRead: 429'],
    ['the quota tests fail with 429'],
    ['FAIL test/rate-limit.test.js > quota is enforced'],
    ['Expected: 429  Received: 200'],
    ['listening on 127.0.0.1:50429, took 503 ms'],
    ['>       assert resp.status_code == 429'],
    ['status: 200'],
  ])('finds no status in a bare number: %s', (line) => {
    expect(httpStatusesIn(line)).toEqual([]);
  });
});

describe('lines that are never messages', () => {
  it('knows stack frames of Node, vitest and Python', () => {
    expect(isStackFrame('    at Turn.run (file:///x/chunk.js:333001:24)')).toBe(true);
    expect(isStackFrame(' ❯ test/rate-limit.test.js:14:24')).toBe(true);
    expect(isStackFrame('  File "tests/test_client.py", line 12, in test_client_raises')).toBe(
      true,
    );
    expect(isStackFrame('API Error: 429 rate limited')).toBe(false);
  });

  it('knows the fields and braces of a Node object dump', () => {
    for (const line of [
      "    code: 'UND_ERR_SOCKET',",
      '      bytesRead: 429',
      '  [cause]: SocketError',
      '}',
      '  },',
    ]) {
      expect(isObjectDumpLine(line)).toBe(true);
    }
    expect(isObjectDumpLine('Error when talking to Gemini API')).toBe(false);
  });
});
