import { describe, expect, it } from 'vitest';
import { defineClassifier } from '../plugins/define.js';
import { retryLinePredicate } from './retry-hints.js';

const classifier = (name: string, isRetryLine?: (l: string) => boolean, retryHints?: string[]) =>
  defineClassifier({
    meta: { name },
    agents: '*',
    classify: () => undefined,
    ...(isRetryLine ? { isRetryLine } : {}),
    ...(retryHints ? { retryHints } : {}),
  });

describe('retryLinePredicate', () => {
  it('runs a hinted hook only on lines holding a hint, case-insensitively', () => {
    const seen: string[] = [];
    const predicate = retryLinePredicate([
      classifier(
        'a',
        (l) => {
          seen.push(l);
          return /Retrying in \d/.test(l);
        },
        ['retrying ('],
      ),
    ]);
    expect(predicate('Retrying in 5s')).toBe(false); // the hint needs "retrying ("
    expect(seen).toEqual([]);
    expect(predicate('RETRYING (1) Retrying in 5s')).toBe(true);
    expect(seen).toEqual(['RETRYING (1) Retrying in 5s']);
  });

  it('escapes regex characters in hints', () => {
    const predicate = retryLinePredicate([
      classifier('a', (l) => l.includes('Reconnecting...'), ['Reconnecting...']),
    ]);
    expect(predicate('Reconnecting... 1/5')).toBe(true);
    expect(predicate('Reconnecting!!! 1/5')).toBe(false);
  });

  it('keeps the answer when one hint holds another', () => {
    const predicate = retryLinePredicate([
      classifier('a', (l) => l.includes('api_retry'), ['api_retry']),
      classifier('b', (l) => /retrying/i.test(l), ['Retry']),
      classifier('c', (l) => l.includes('Ünicode retry'), ['Ünicode retry']),
    ]);
    expect(predicate('{"subtype":"api_retry"}')).toBe(true);
    expect(predicate('RETRYING now')).toBe(true);
    expect(predicate('Ünicode retry')).toBe(true);
    expect(predicate('api call')).toBe(false);
  });

  it('runs hooks without hints on every line, and is false without hooks', () => {
    const predicate = retryLinePredicate([
      classifier('hinted', (l) => l === 'x retry', ['retry']),
      classifier('plain', (l) => l === 'waiting'),
      classifier('none'),
    ]);
    expect(predicate('x retry')).toBe(true);
    expect(predicate('waiting')).toBe(true);
    expect(predicate('done')).toBe(false);
    expect(retryLinePredicate([classifier('none')])('retrying')).toBe(false);
  });
});
