import { describe, expect, it } from 'vitest';
import { StreamMasker } from './stream-masker.js';

const secret = { name: 'API_KEY', value: 'sk-live-0123456789abcdef' };

/** Feeds `text` in chunks of `size` bytes; returns what was passed on and every mask. */
function feed(text: string, size: number) {
  const masker = new StreamMasker([secret]);
  const input = Buffer.from(text);
  const out: Buffer[] = [];
  const masks: Array<{ offset: number; mask: string }> = [];
  let next = 0;
  const take = (r: ReturnType<StreamMasker['push']>) => {
    expect(r.offset).toBe(next); // contiguous: no byte lost or repeated
    next += r.data.length;
    out.push(Buffer.from(r.data));
    for (const m of r.masks) masks.push({ offset: m.offset, mask: m.mask.toString() });
  };
  for (let i = 0; i < input.length; i += size) take(masker.push(input.subarray(i, i + size)));
  take(masker.end());
  return { out: Buffer.concat(out).toString(), masks, input };
}

describe('StreamMasker', () => {
  it('masks a secret split across any chunk boundary, and never passes on a piece of it', () => {
    const text = `env: API_KEY=${secret.value}\nafter ${secret.value} end\n`;
    for (const size of [1, 2, 3, 5, 7, 11, 13, 24, 1000]) {
      const masker = new StreamMasker([secret]);
      const input = Buffer.from(text);
      let passed = '';
      for (let i = 0; i < input.length; i += size) {
        passed += masker.push(input.subarray(i, i + size)).data.toString();
        // no prefix of the secret longer than 3 bytes is ever out before it is known whole
        expect(passed).not.toContain(secret.value.slice(0, 4));
      }
      passed += masker.end().data.toString();
      expect(passed).not.toContain(secret.value.slice(0, 4));
      expect(passed.length).toBe(text.length);
    }
  });

  it('reports each mask at its byte offset in the stream, same length as the secret', () => {
    const text = `x${secret.value}y${secret.value}`;
    const { out, masks } = feed(text, 4);
    expect(masks.map((m) => m.offset)).toEqual([1, 2 + secret.value.length]);
    expect(masks[0]?.mask).toBe('[redacted:API_KEY]******');
    expect(out).toBe(`x${masks[0]?.mask}y${masks[1]?.mask}`);
  });

  it('holds back only bytes that could begin a secret', () => {
    const masker = new StreamMasker([secret]);
    expect(masker.push(Buffer.from('done\n')).data.toString()).toBe('done\n');
    expect(masker.push(Buffer.from('key: sk-li')).data.toString()).toBe('key: ');
    expect(masker.push(Buffer.from('ght\n')).data.toString()).toBe('sk-light\n');
  });

  it('passes text without secrets through unchanged', () => {
    expect(feed('plain output\nline two\n', 3).out).toBe('plain output\nline two\n');
  });
});
