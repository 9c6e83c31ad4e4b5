import { describe, expect, it } from 'vitest';
import { sharedPass } from './shared-pass.js';

/** A pass the test ends by hand; each records the requests it answered. */
function gatedPasses() {
  const passes: { requests: string[]; end: (value?: unknown) => void }[] = [];
  const pass = (requests: readonly string[]) =>
    new Promise<string>((resolve, reject) => {
      const n = passes.length;
      passes.push({
        requests: [...requests],
        end: (error) => (error ? reject(error) : resolve(`pass ${n}`)),
      });
    });
  return { pass, passes };
}

const turn = () => new Promise<void>((done) => setImmediate(done));

describe('a shared pass', () => {
  it('answers the requests of one turn with one pass, and those made during it with the next', async () => {
    const { pass, passes } = gatedPasses();
    const ask = sharedPass(pass, { gapTurns: 0 });
    const first = [ask('a'), ask('b')];
    await turn();
    expect(passes.map((p) => p.requests)).toEqual([['a', 'b']]);
    // Made while the first pass runs: answered by a pass that starts after they were made.
    const second = [ask('c'), ask('d')];
    await turn();
    expect(passes).toHaveLength(1);
    passes[0]?.end();
    expect(await Promise.all(first)).toEqual(['pass 0', 'pass 0']);
    await turn();
    expect(passes.map((p) => p.requests)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    passes[1]?.end();
    expect(await Promise.all(second)).toEqual(['pass 1', 'pass 1']);
    // Idle again: a later request starts a pass of its own.
    const third = ask('e');
    await turn();
    expect(passes.map((p) => p.requests)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    passes[2]?.end();
    expect(await third).toBe('pass 2');
  });

  it('waits the gap turns after a pass, gathering the requests made in them into the next', async () => {
    const { pass, passes } = gatedPasses();
    const ask = sharedPass(pass, { gapTurns: 3 });
    const first = ask('a');
    await turn();
    passes[0]?.end();
    expect(await first).toBe('pass 0');
    const later = [ask('b')];
    await turn();
    later.push(ask('c'));
    await turn();
    expect(passes).toHaveLength(1); // still in the gap
    await turn();
    await turn();
    expect(passes.map((p) => p.requests)).toEqual([['a'], ['b', 'c']]);
    passes[1]?.end();
    expect(await Promise.all(later)).toEqual(['pass 1', 'pass 1']);
  });

  it('rejects the requests of a failed pass and goes on with the next', async () => {
    const { pass, passes } = gatedPasses();
    const ask = sharedPass(pass, { gapTurns: 0 });
    const failed = ask('a');
    await turn();
    const next = ask('b');
    passes[0]?.end(new Error('unreadable'));
    await expect(failed).rejects.toThrow('unreadable');
    await turn();
    expect(passes.map((p) => p.requests)).toEqual([['a'], ['b']]);
    passes[1]?.end();
    expect(await next).toBe('pass 1');
  });
});
