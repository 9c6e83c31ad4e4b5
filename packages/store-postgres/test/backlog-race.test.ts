import assert from 'node:assert/strict';
import { fenceOf } from '@switchyard/core';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import type { BacklogTask, Delivery } from '../src/backlog-types.js';
import { createPool, type Pool } from '../src/db.js';
import { openPostgresStore, type PostgresStore } from '../src/index.js';
import { parseStoreUrl } from '../src/url.js';
import { freshScope, testDatabase } from './database.js';

// Two machines on one backlog whose transactions interleave. A third connection holds a
// waiting task's row lock, so the archiving transaction stops inside its release of dependents
// (its snapshot taken) until the test lets it go: the interleaving is the same every time.
let url = '';
let admin: Pool;
const opened: PostgresStore[] = [];
beforeAll(async () => {
  url = await testDatabase();
  admin = createPool(parseStoreUrl(url), 2);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await admin?.end();
});

const open = async (scope: string, now?: () => number) => {
  const store = await openPostgresStore({ url, scope, ...(now ? { now } : {}) });
  opened.push(store);
  return store;
};
const task = (id: string, dependsOn: string[] = []): BacklogTask => ({
  task: id,
  planHash: `hash-${id}`,
  dependsOn,
  payload: null,
});

/** Sessions of the store's pools waiting for a lock. */
async function lockWaiters(): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `select count(*)::int n from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return rows[0]?.n ?? 0;
}

async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Whether a promise settled already (without waiting for it). */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  const settled = promise.then(
    (value) => {
      done = true;
      return value;
    },
    (error: unknown) => {
      done = true;
      throw error;
    },
  );
  return { promise: settled, settled: () => done };
}

/**
 * Runs `first` (an archive that stops on `held`'s row lock inside its release of dependents),
 * then `second` until it committed or waits for a lock too, then lets both go.
 */
async function interleave(
  store: PostgresStore,
  held: string,
  first: () => Promise<unknown>,
  second: () => Promise<unknown>,
): Promise<void> {
  const client = await admin.connect();
  try {
    await client.query('begin');
    await client.query(
      `select 1 from ${store.context.s}.backlog where scope = $1 and task = $2 for update`,
      [store.scope, held],
    );
    const a = tracked(first());
    await until(async () => (await lockWaiters()) >= 1);
    const b = tracked(second());
    await until(async () => b.settled() || (await lockWaiters()) >= 2);
    await client.query('commit');
    await Promise.all([a.promise, b.promise]);
  } finally {
    client.release();
  }
}

const statusOf = async (store: PostgresStore) =>
  Object.fromEntries((await (await store.backlog()).list()).map((e) => [e.task, e.status]));

describe('the backlog under interleaved archives and publishes', () => {
  it('two machines archiving the last two predecessors of a task at once: it becomes ready', async () => {
    const scope = freshScope('fanin');
    const [a, b] = [await open(scope), await open(scope)] as [PostgresStore, PostgresStore];
    const [ba, bb] = [await a.backlog(), await b.backlog()];
    // t4 depends on t1 alone: its row, locked by the test, stops t1's archive midway.
    await ba.publish(
      [task('g/t1'), task('g/t2'), task('g/t3', ['g/t1', 'g/t2']), task('g/t4', ['g/t1'])],
      'test',
    );
    const taken = [await ba.take('A', 60_000), await bb.take('B', 60_000)] as Delivery[];
    const t1 = taken.find((d) => d.entry.task === 'g/t1') as Delivery;
    const t2 = taken.find((d) => d.entry.task === 'g/t2') as Delivery;
    assert.ok(t1 && t2, 'each machine took one of the two predecessors');
    const [of1, of2] = t1 === taken[0] ? [ba, bb] : [bb, ba];
    await interleave(
      a,
      'g/t4',
      () => of1.finish('g/t1', 'archived', fenceOf(t1.lease)),
      () => of2.finish('g/t2', 'archived', fenceOf(t2.lease)),
    );
    const status = await statusOf(a);
    assert.equal(status['g/t3'], 'ready', JSON.stringify(status));
    assert.equal(status['g/t4'], 'ready');
    const next = [await ba.take('A', 60_000), await ba.take('A', 60_000)];
    assert.deepEqual(next.map((d) => d?.entry.task).sort(), ['g/t3', 'g/t4']);
  });

  it('a task published while its predecessor is being archived: it becomes ready', async () => {
    const scope = freshScope('publish');
    const [a, b] = [await open(scope), await open(scope)] as [PostgresStore, PostgresStore];
    const [ba, bb] = [await a.backlog(), await b.backlog()];
    await ba.publish([task('g/t1'), task('g/t4', ['g/t1'])], 'test');
    const t1 = (await ba.take('A', 60_000)) as Delivery;
    assert.equal(t1.entry.task, 'g/t1');
    await interleave(
      a,
      'g/t4',
      () => ba.finish('g/t1', 'archived', fenceOf(t1.lease)),
      () => bb.publish([task('g/t5', ['g/t1'])], 'B'),
    );
    const status = await statusOf(a);
    assert.equal(status['g/t5'], 'ready', JSON.stringify(status));
    assert.equal(status['g/t4'], 'ready');
  });
});

// Holding this advisory lock stops every UPDATE statement on the backlog table at its start
// (a statement trigger), after the rows the transaction locked before it: a machine's finish or
// requeue holding its locks meets another machine's take of the same task.
const PAUSE = 7_202_612;

async function pauseBacklogUpdates(store: PostgresStore): Promise<void> {
  const s = store.context.s;
  await admin.query(`
    create or replace function ${s}.test_pause() returns trigger language plpgsql as $$
    begin perform pg_advisory_xact_lock_shared(${PAUSE}); return null; end $$;
    drop trigger if exists test_pause on ${s}.backlog;
    create trigger test_pause before update on ${s}.backlog
      for each statement execute function ${s}.test_pause();`);
}

describe('the lock order of finish and requeue against a take-over', () => {
  for (const end of ['finish', 'requeue'] as const)
    it(`a holder's ${end} while another machine takes its expired task over: no deadlock`, async () => {
      const scope = freshScope(end);
      const a = await open(scope);
      // The other machine's clock is past every lease A holds: the task is an orphan to it.
      const b = await open(scope, () => Date.now() + 3_600_000);
      await pauseBacklogUpdates(a);
      const [ba, bb] = [await a.backlog(), await b.backlog()];
      await ba.publish([task('g/k')], 'test');
      const held = (await ba.take('A', 60_000)) as Delivery;
      assert.equal(held.entry.task, 'g/k');
      const client = await admin.connect();
      let ended: PromiseSettledResult<unknown>[];
      try {
        await client.query('select pg_advisory_lock($1)', [PAUSE]);
        const settle = tracked(
          end === 'finish'
            ? ba.finish('g/k', 'archived', fenceOf(held.lease))
            : ba.requeue('g/k', fenceOf(held.lease)),
        );
        await until(async () => (await lockWaiters()) >= 1);
        const take = tracked(bb.take('B', 60_000));
        await until(async () => take.settled() || (await lockWaiters()) >= 2);
        await client.query('select pg_advisory_unlock($1)', [PAUSE]);
        ended = await Promise.allSettled([settle.promise, take.promise]);
      } finally {
        client.release();
      }
      for (const outcome of ended)
        assert.equal(
          outcome.status,
          'fulfilled',
          String((outcome as PromiseRejectedResult).reason),
        );
      const entry = await ba.get('g/k');
      if (end === 'finish') assert.equal(entry?.status, 'archived');
      else {
        // Given back, then taken over by B (at once, or by its next take).
        const taken = (ended[1] as PromiseFulfilledResult<Delivery | undefined>).value;
        const next = taken ?? (await bb.take('B', 60_000));
        assert.equal(next?.entry.task, 'g/k');
        assert.ok(next && next.lease.token > held.lease.token);
      }
    });
});
