import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FramedLine, LineFramer } from './line-framer.js';

function frame(chunks: (string | Buffer)[], maxLineBytes?: number) {
  const lines: { n: number; text: string; truncated: boolean; total: number }[] = [];
  const framer = new LineFramer(
    (l: FramedLine) =>
      lines.push({
        n: l.lineNumber,
        text: l.bytes.toString('utf8'),
        truncated: l.truncated,
        total: l.totalBytes,
      }),
    { maxLineBytes },
  );
  for (const c of chunks) framer.push(c);
  framer.end();
  return lines;
}

describe('LineFramer', () => {
  it('joins partial lines across chunks and strips CRLF', () => {
    const lines = frame(['{"a":', '1}\r', '\nsecond\r\n', 'thi', 'rd']);
    expect(lines.map((l) => l.text)).toEqual(['{"a":1}', 'second', 'third']);
    expect(lines.map((l) => l.n)).toEqual([1, 2, 3]);
  });

  it('keeps empty lines and a lone CR inside a line', () => {
    expect(frame(['a\n\nb\rc\n']).map((l) => l.text)).toEqual(['a', '', 'b\rc']);
  });

  it('caps the bytes kept for a huge line and counts the rest', () => {
    const big = 'x'.repeat(10_000);
    const chunks = [big.slice(0, 3000), big.slice(3000, 7000), `${big.slice(7000)}\r\nafter\n`];
    const lines = frame(chunks, 100);
    expect(lines[0]).toEqual({ n: 1, text: 'x'.repeat(100), truncated: true, total: 10_000 });
    expect(lines[1]).toEqual({ n: 2, text: 'after', truncated: false, total: 5 });
  });

  it('caps a huge line that arrives in a single chunk', () => {
    const lines = frame([`${'y'.repeat(500)}\nz`], 10);
    expect(lines[0]?.truncated).toBe(true);
    expect(lines[0]?.text).toBe('y'.repeat(10));
    expect(lines[1]?.text).toBe('z');
  });

  it('frames any chunking of a text exactly like splitting it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', '\n', '\r\n', 'é', '{', '}'), { maxLength: 80 }),
        fc.array(fc.nat(80), { maxLength: 6 }),
        (parts, cuts) => {
          const text = parts.join('');
          const bytes = Buffer.from(text);
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          const chunks: Buffer[] = [];
          let prev = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.subarray(prev, p));
            prev = p;
          }
          const expected = text.split('\n').map((l) => l.replace(/\r$/, ''));
          if (expected.at(-1) === '') expected.pop();
          expect(frame(chunks).map((l) => l.text)).toEqual(expected);
        },
      ),
    );
  });
});
