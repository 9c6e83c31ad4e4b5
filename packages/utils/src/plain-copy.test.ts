import { describe, expect, it } from 'vitest';
import { copyPlainData } from './plain-copy.js';

describe('copyPlainData', () => {
  const state = () => ({
    id: 'a',
    phase: 'worker',
    attempts: [{ id: 'a-1', pid: 12, ended: undefined, notes: ['x', null, true, 1.5] }],
    plan: { loops: [{ loop: 1, text: '- [ ] one' }], checklist: [] as unknown[] },
  });

  it('equals structuredClone of plain data and shares nothing with the original', () => {
    const value = state();
    const copy = copyPlainData(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect('ended' in copy.attempts[0]!).toBe(true); // an undefined value keeps its key
    copy.attempts[0]!.notes.push('changed');
    copy.plan.loops[0]!.text = 'changed';
    expect(value).toStrictEqual(state());
  });

  it('passes every string, and only strings, through mapString', () => {
    const copy = copyPlainData(state(), (text) => text.toUpperCase());
    expect(copy.phase).toBe('WORKER');
    expect(copy.attempts[0]!.notes).toEqual(['X', null, true, 1.5]);
    expect(copy.plan.loops[0]!.text).toBe('- [ ] ONE');
  });

  it('keeps an own "__proto__" key a key, as JSON.parse and structuredClone do', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": "yes"}, "b": "x"}');
    const copy = copyPlainData(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'b']);
    expect(copy).toStrictEqual(structuredClone(parsed));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('clones other objects as structuredClone does, mapping the plain data that gives', () => {
    const when = new Date(0);
    const bare = Object.assign(Object.create(null), { s: 'inner' });
    const copy = copyPlainData({ when, map: new Map([['k', 'v']]), bare }, (t) => `<${t}>`);
    expect(copy.when).toEqual(when);
    expect(copy.when).not.toBe(when);
    expect(copy.map).toEqual(new Map([['k', 'v']])); // structuredClone's copy, not walked
    expect(copy.bare).toStrictEqual({ s: '<inner>' });
    expect(() => copyPlainData({ f: () => 1 })).toThrow(/could not be cloned/);
  });
});
