import assert from 'node:assert/strict';
import type { EventPage } from '@switchyard/core';
import { withStores } from './harness.js';
import { admitted } from './samples.js';
import type { ConformanceRunner, StoreAdapter } from './types.js';

const seqs = (page: EventPage) => page.events.map((e) => e.seq);

/** When a read of the event log says `reset`: as the adapter declares (`eventLogReset`). */
export function resetCases(t: ConformanceRunner, adapter: StoreAdapter): void {
  if (adapter.eventLogReset === 'on-replace') {
    t.it(
      'events: a log replaced under a reader (gone, then shorter) is read from the start, with reset',
      () =>
        withStores(adapter, async ({ a, b, location }) => {
          const replace = location.replaceEventLog?.bind(location);
          assert.ok(replace, `${adapter.name}: eventLogReset 'on-replace' needs replaceEventLog`);
          for (let i = 1; i <= 6; i++) await a.events.append(admitted('g/a', i));
          const seen = await b.events.read();
          assert.equal(seen.reset, undefined);
          assert.equal(seen.events.length, 6);

          await replace([]);
          const gone = await b.events.read({ after: seen.next });
          assert.equal(gone.reset, true, 'a log that is gone');
          assert.deepEqual(gone.events, []);
          assert.equal((await b.events.read({ after: gone.next })).reset, undefined);

          const replacement = [admitted('h/b', 1), admitted('h/b', 2)];
          await replace(replacement);
          const shorter = await b.events.read({ after: seen.next });
          assert.equal(shorter.reset, true, 'a log shorter than the position read from');
          assert.deepEqual(
            shorter.events.map((e) => e.event),
            replacement,
          );
          // the new log's own positions read on as usual
          const end = await b.events.read({ after: shorter.next });
          assert.equal(end.reset, undefined);
          assert.deepEqual(end.events, []);
          const first = shorter.events[0]?.seq as number;
          const rest = await a.events.read({ after: first });
          assert.equal(rest.reset, undefined);
          assert.deepEqual(seqs(rest), seqs(shorter).slice(1));
        }),
    );
    t.it(
      "events: a log replaced by one that holds the reader's position too is read from the start, with reset",
      () =>
        withStores(adapter, async ({ a, b, location }) => {
          const replace = location.replaceEventLog?.bind(location);
          assert.ok(replace, `${adapter.name}: eventLogReset 'on-replace' needs replaceEventLog`);
          for (let i = 1; i <= 3; i++) await a.events.append(admitted('g/a', i));
          const seen = await b.events.read();
          assert.equal(seen.events.length, 3);

          // Events of the same shapes as the old ones: the new log has an entry ending exactly
          // where the reader stopped (on the file store, a line end at the same byte).
          const replacement = [1, 2, 3, 4, 5].map((i) => admitted('h/b', i));
          await replace(replacement);
          const fresh = await a.events.read();
          assert.ok(
            fresh.events.some((e) => e.seq === seen.next),
            'the replacement holds the position the reader stopped at',
          );
          const page = await b.events.read({ after: seen.next, mark: seen.mark });
          assert.equal(page.reset, true, 'a replacement that holds the old position');
          assert.deepEqual(
            page.events.map((e) => e.event),
            replacement,
          );
          // read on from the new log's position: no reset, nothing new
          const end = await b.events.read({ after: page.next, mark: page.mark });
          assert.equal(end.reset, undefined);
          assert.deepEqual(end.events, []);
        }),
    );
    return;
  }
  t.it('events: a log only ever appended to: no read says reset, from any position', () =>
    withStores(adapter, async ({ a, b }) => {
      const empty = await b.events.read({ after: 5 });
      assert.equal(empty.reset, undefined, 'a position past the end of an empty log');
      assert.deepEqual(empty.events, []);
      const written: number[] = [];
      for (let i = 1; i <= 4; i++)
        written.push(await (i % 2 ? a : b).events.append(admitted('g/a', i)));
      const all = await b.events.read();
      assert.equal(all.reset, undefined);
      for (const [i, seq] of [0, ...written].entries()) {
        const page = await a.events.read({ after: seq });
        assert.equal(page.reset, undefined, `read after ${seq}`);
        assert.deepEqual(seqs(page), written.slice(i));
      }
      const past = await a.events.read({ after: all.next + 1000 });
      assert.equal(past.reset, undefined, 'a position past the end');
      assert.deepEqual(past.events, []);
    }),
  );
}
