import assert from 'node:assert/strict';
import { withStores } from './harness.js';
import { admitted } from './samples.js';
import type { ConformanceRunner, StoreAdapter } from './types.js';

/** Claim races and the event log's order and replay. */
export function logCases(t: ConformanceRunner, adapter: StoreAdapter): void {
  t.it('claims: of tasks racing for a path exactly one wins; all or nothing; release', () =>
    withStores(adapter, async ({ a, b }) => {
      const racers = Array.from({ length: 8 }, (_, i) => `g/t${i}`);
      const results = await Promise.all(
        racers.map((task, i) =>
          (i % 2 ? a : b).claims.tryClaim(task, ['src/shared.ts', `src/own-${i}.ts`]),
        ),
      );
      const winners = racers.filter((_, i) => results[i]?.ok);
      assert.equal(winners.length, 1, `winners: ${winners.join(', ')}`);
      const winner = winners[0] as string;
      for (const [i, result] of results.entries()) {
        if (result.ok) continue;
        assert.deepEqual(result.conflicts, [{ path: 'src/shared.ts', holder: winner }]);
        // all or nothing: the loser's own path was not taken
        assert.equal(await a.claims.holderOf(`src/own-${i}.ts`), undefined);
      }
      assert.equal(await b.claims.holderOf('src/shared.ts'), winner);
      // a retry of the holder adds paths and keeps its first claim time
      const [before] = await a.claims.list();
      const more = await a.claims.tryClaim(winner, ['src/extra.ts']);
      assert.ok(more.ok);
      assert.deepEqual(more.paths, [
        'src/extra.ts',
        `src/own-${racers.indexOf(winner)}.ts`,
        'src/shared.ts',
      ]);
      const [after] = await b.claims.list();
      assert.equal(after?.since, before?.since);
      assert.equal((await b.claims.snapshot()).get('src/extra.ts'), winner);
      assert.deepEqual((await b.claims.release(winner)).sort(), more.paths);
      assert.deepEqual(await a.claims.list(), []);
      assert.ok((await a.claims.tryClaim('g/t0', ['src/shared.ts'])).ok);
      assert.deepEqual(await b.claims.release('g/none'), []);
    }),
  );

  t.it('events: append order, increasing sequence numbers, replay from a position', () =>
    withStores(adapter, async ({ a, b }) => {
      const seqs: number[] = [];
      for (let i = 1; i <= 12; i++)
        seqs.push(await (i % 3 ? a : b).events.append(admitted('g/a', i)));
      for (let i = 1; i < seqs.length; i++)
        assert.ok(
          (seqs[i] as number) > (seqs[i - 1] as number),
          `seq ${seqs[i]} after ${seqs[i - 1]}`,
        );
      const all = await b.events.read();
      assert.deepEqual(
        all.events.map((e) => (e.event.type === 'task.admitted' ? e.event.planLoop : 0)),
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      assert.deepEqual(
        all.events.map((e) => e.seq),
        seqs,
      );
      assert.equal(all.next, seqs.at(-1));
      // replay from the fifth event's position: the rest, in order
      const rest = await a.events.read({ after: seqs[4] });
      assert.deepEqual(
        rest.events.map((e) => e.seq),
        seqs.slice(5),
      );
      // paging with a limit reaches the same events
      const paged: number[] = [];
      let after = 0;
      for (;;) {
        const page = await a.events.read({ after, limit: 5 });
        if (page.events.length === 0) break;
        assert.ok(page.events.length <= 5);
        paged.push(...page.events.map((e) => e.seq));
        after = page.next;
      }
      assert.deepEqual(paged, seqs);
      const end = await b.events.read({ after: all.next });
      assert.deepEqual(end.events, []);
      assert.equal(end.next, all.next);
      // appends after a read are seen from that position
      const late = await b.events.append(admitted('g/b', 1));
      assert.deepEqual(
        (await a.events.read({ after: all.next })).events.map((e) => e.seq),
        [late],
      );
    }),
  );
}
