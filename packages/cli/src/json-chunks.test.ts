import { describe, expect, it } from 'vitest';
import { encodeJsonChunks } from './json-chunks.js';

const encode = (value: Record<string, unknown>, chunkBytes?: number) => {
  const chunks: Buffer[] = [];
  encodeJsonChunks(value, (c) => chunks.push(c), chunkBytes);
  return chunks;
};

describe('encodeJsonChunks', () => {
  const samples: Record<string, unknown>[] = [
    {},
    { a: [] },
    { a: 1, b: 'x', c: null, d: true, e: { f: [1, 2] } },
    { skipped: undefined, fn: () => 1, kept: 'yes', sym: Symbol('s') },
    { list: [1, undefined, () => 2, 'three', { four: 4 }, [5]] },
    { when: new Date(Date.UTC(2026, 10, 30)), items: [new Date(0)] },
    { note: 'src/a.ts — change 1', quote: 'a "b" \\ c\n\u2028', emoji: ['👍', 'é'] },
    { ['key "quoted"']: ['x'], '': 0 },
    { toJSON: () => ({ replaced: [1, 2] }) } as unknown as Record<string, unknown>,
    { toJSON: () => 'plain' } as unknown as Record<string, unknown>,
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
});
