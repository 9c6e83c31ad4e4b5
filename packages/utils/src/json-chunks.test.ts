import { describe, expect, it } from 'vitest';
import { encodeJsonChunks, Utf8ChunkWriter } from './json-chunks.js';

const encode = (value: object, chunkBytes?: number) => {
  const chunks: Buffer[] = [];
  encodeJsonChunks(value, (c) => chunks.push(c), chunkBytes);
  return chunks;
};

describe('encodeJsonChunks', () => {
  const samples: object[] = [
    {},
    { a: [] },
    { a: 1, b: 'x', c: null, d: true, e: { f: [1, 2] } },
    { skipped: undefined, fn: () => 1, kept: 'yes', sym: Symbol('s') },
    { list: [1, undefined, () => 2, 'three', { four: 4 }, [5]] },
    { when: new Date(Date.UTC(2026, 10, 30)), items: [new Date(0)] },
    { note: 'src/a.ts — change 1', quote: 'a "b" \\ c\n\u2028', emoji: ['👍', 'é'] },
    { 'key "quoted"': ['x'], '': 0 },
    { toJSON: () => ({ replaced: [1, 2] }) } as unknown as Record<string, unknown>,
    { toJSON: () => 'plain' } as unknown as Record<string, unknown>,
    { nested: { a: undefined, b: 1, c: { d: undefined } }, empty: {}, map: new Map([[1, 2]]) },
    { boxed: new String('text'), num: new Number(3), inf: Number.POSITIVE_INFINITY, neg: -0 },
    {
      bare: Object.assign(Object.create(null), { x: [1] }),
      cls: new (class {
        y = 2;
      })(),
    },
    [1, { a: 'é' }, undefined],
  ];

  it.each(samples.map((s, i) => [i, s] as const))('sample %i equals JSON.stringify', (_, s) => {
    for (const size of [1, 8, 64, 1 << 16])
      expect(Buffer.concat(encode(s, size)).toString()).toBe(JSON.stringify(s));
  });

  it('passes a large report on in chunks of at most the size, the same bytes as one stringify', () => {
    const tasks = Array.from({ length: 5_000 }, (_, i) => ({
      id: `g/t-${i}`,
      write_set: [{ path: `src/f${i}.ts`, line: 3, ...(i % 3 ? {} : { note: '— change' }) }],
      problems: [],
    }));
    const report = { schema_version: 1, tasks, collisions: tasks.slice(0, 10), summary: { n: 1 } };
    const chunks = encode(report, 4_096);
    expect(Buffer.concat(chunks).toString()).toBe(JSON.stringify(report));
    expect(chunks.length).toBeGreaterThan(100);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(4_096);
  });

  it('never splits a character between chunks', () => {
    const chunks: Buffer[] = [];
    const writer = new Utf8ChunkWriter((c) => chunks.push(Buffer.from(c)), 7);
    const pieces = ['ab', '—', 'c👍', 'défg', '—', 'x'.repeat(20), 'é'];
    for (const piece of pieces) writer.push(piece);
    writer.flush();
    for (const chunk of chunks) expect(Buffer.from(chunk.toString()).equals(chunk)).toBe(true);
    expect(Buffer.concat(chunks).toString()).toBe(pieces.join(''));
  });
});
