import { describe, expect, it } from 'vitest';
import { memoizeByText } from './memo-by-text.js';

describe('memoizeByText', () => {
  it('parses a text once, gives every caller its own copy, and forgets the oldest text', () => {
    const parsed: string[] = [];
    const parse = memoizeByText((source: string, file = 'PLAN.md') => {
      parsed.push(`${file}:${source}`);
      return { file, words: source.split(' ') };
    }, 2);
    const first = parse('a b');
    first.words.push('changed by a caller');
    expect(parse('a b')).toEqual({ file: 'PLAN.md', words: ['a', 'b'] });
    expect(parse('a b', 'OTHER.md')).toEqual({ file: 'OTHER.md', words: ['a', 'b'] });
    expect(parsed).toEqual(['PLAN.md:a b', 'OTHER.md:a b']);
    parse('c'); // a third text: the least recently used ('a b' without a file) goes
    parse('a b', 'OTHER.md');
    parse('a b');
    expect(parsed).toEqual(['PLAN.md:a b', 'OTHER.md:a b', 'PLAN.md:c', 'PLAN.md:a b']);
  });
});
