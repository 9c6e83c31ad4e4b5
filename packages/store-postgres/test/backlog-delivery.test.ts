import assert from 'node:assert/strict';
import { fenceOf } from '@switchyard/core';
import { afterEach, beforeAll, describe, it } from 'vitest';
import { JOB_RETENTION_SECONDS } from '../src/backlog-queue.js';
import type { BacklogTask, Delivery } from '../src/backlog-types.js';
import { ident } from '../src/db.js';
import { openPostgresStore, type PostgresStore } from '../src/index.js';
import { freshScope, testDatabase } from './database.js';

// A ready task is delivered only by its pg-boss job: what happens when that job is gone.
let url = '';
const opened: PostgresStore[] = [];
beforeAll(async () => {
  url = await testDatabase();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const open = async (scope: string, now?: () => number) => {
  const store = await openPostgresStore({ url, scope, ...(now ? { now } : {}) });
  opened.push(store);
  return store;
};
const task = (id: string): BacklogTask => ({
  task: id,
  planHash: `hash-${id}`,
  dependsOn: [],
  payload: null,
});

/** The queue's jobs that can still be fetched (created, retry, active), by task. */
async function liveJobs(store: PostgresStore, queue: string): Promise<Record<string, number>> {
  const { rows } = await store.context.pool.query<{ task: string; n: number }>(
    `select singleton_key task, count(*)::int n from ${ident(store.pgLocation.bossSchema)}.job
     where name = $1 and state in ('created', 'retry', 'active') group by singleton_key`,
    [queue],
  );
  return Object.fromEntries(rows.map((row) => [row.task, row.n]));
}

describe('delivery of ready tasks', () => {
  it('the queue and its jobs are kept for decades, not pg-boss’s 14 days', async () => {
    const store = await open(freshScope('retention'));
    const backlog = await store.backlog();
    await backlog.publish([task('g/a')], 'test');
    const boss = ident(store.pgLocation.bossSchema);
    const { rows } = await store.context.pool.query<{ retention: number; years: number }>(
      `select q.retention_seconds retention,
              extract(epoch from (j.keep_until - now())) / (365 * 86400) years
       from ${boss}.queue q join ${boss}.job j on j.name = q.name where q.name = $1`,
      [backlog.queue],
    );
    assert.equal(rows[0]?.retention, JOB_RETENTION_SECONDS);
    assert.ok(Number(rows[0]?.years) > 40, `kept ${rows[0]?.years} years`);
  });

  it('a ready task whose job was deleted is delivered by the next take, once', async () => {
    const store = await open(freshScope('gone'));
    const backlog = await store.backlog();
    await backlog.publish([task('g/a'), task('g/b')], 'test');
    // pg-boss's retention (or a person) deleted g/a's job; g/b's is still there.
    await store.context.pool.query(
      `delete from ${ident(store.pgLocation.bossSchema)}.job where name = $1 and singleton_key = 'g/a'`,
      [backlog.queue],
    );
    assert.deepEqual(await liveJobs(store, backlog.queue), { 'g/b': 1 });
    const first = (await backlog.take('X', 60_000)) as Delivery;
    const second = (await backlog.take('Y', 60_000)) as Delivery;
    assert.deepEqual([first?.entry.task, second?.entry.task].sort(), ['g/a', 'g/b']);
    assert.equal(await backlog.take('Z', 60_000), undefined, 'each task delivered once');
    assert.deepEqual(await liveJobs(store, backlog.queue), {});
    assert.equal((await backlog.get('g/a'))?.status, 'taken');
  });

  it('sending a ready task again while its job waits adds no second job (exclusive policy): a delayed delivery stays delayed', async () => {
    const store = await open(freshScope('delayed'));
    const backlog = await store.backlog();
    await backlog.publish([task('g/c')], 'test');
    const taken = (await backlog.take('X', 60_000)) as Delivery;
    // Given back for an hour: ready, its job not due yet.
    await backlog.requeue('g/c', fenceOf(taken.lease), 3600);
    assert.equal((await backlog.get('g/c'))?.status, 'ready');
    assert.equal(await backlog.take('Y', 60_000), undefined);
    assert.equal(await backlog.take('Y', 60_000), undefined);
    assert.deepEqual(await liveJobs(store, backlog.queue), { 'g/c': 1 });
  });

  it('a ready task whose last holder’s lease still runs gets no job until the lease expires, then is delivered', async () => {
    const scope = freshScope('leased');
    const store = await open(scope);
    const backlog = await store.backlog();
    await backlog.publish([task('g/l')], 'test');
    const taken = (await backlog.take('X', 60_000)) as Delivery;
    // Ready again while X's lease runs (a human's answer on a task whose holder never released it).
    await store.context.pool.query(
      `update ${store.context.s}.backlog set status = 'ready' where scope = $1 and task = 'g/l'`,
      [scope],
    );
    assert.equal(await backlog.take('Y', 60_000), undefined);
    const { rows } = await store.context.pool.query<{ n: number }>(
      `select count(*)::int n from ${ident(store.pgLocation.bossSchema)}.job where name = $1`,
      [backlog.queue],
    );
    assert.equal(rows[0]?.n, 1, 'no job sent while the lease runs (only the one X took)');
    const later = await open(scope, () => taken.lease.expiresAt + 1);
    const next = await (await later.backlog()).take('Z', 60_000);
    assert.equal(next?.entry.task, 'g/l');
    assert.ok(next && next.lease.token > taken.lease.token);
  });
});
