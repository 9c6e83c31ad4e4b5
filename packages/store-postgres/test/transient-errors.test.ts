import assert from 'node:assert/strict';
import { fenceOf } from '@switchyard/core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Delivery } from '../src/backlog-types.js';
import { createPool, type Pool, transaction, transientError } from '../src/db.js';
import { openPostgresStore } from '../src/index.js';
import { parseStoreUrl } from '../src/url.js';
import { freshScope, testDatabase } from './database.js';

// Failures that pass become SY_STORE_TRANSIENT (a dispatcher tries again on its next pass);
// the others keep what they are (they end the run). The errors are the server's own.
let url = '';
let pool: Pool;
beforeAll(async () => {
  url = await testDatabase();
  pool = createPool(parseStoreUrl(url), 2);
});
afterAll(async () => {
  await pool?.end();
});

const failure = async (sql: string): Promise<unknown> => {
  try {
    await pool.query(sql);
  } catch (error) {
    return error;
  }
  throw new Error(`${sql} did not fail`);
};
const raising = (state: string) =>
  failure(`do $$ begin raise exception 'raised' using errcode = '${state}'; end $$`);
const codeOf = (error: unknown) => (error as { code?: string }).code;

describe('transient store errors', () => {
  it('a deadlock, a serialization failure, a server shutting down: SY_STORE_TRANSIENT with the cause', async () => {
    for (const state of ['40P01', '40001', '57P01', '08006']) {
      const error = await raising(state);
      const wrapped = transientError(error, 'the store');
      assert.equal(codeOf(wrapped), 'SY_STORE_TRANSIENT', state);
      assert.equal((wrapped as Error).cause, error);
      assert.match((wrapped as Error).message, new RegExp(state));
    }
  });

  it('a connection the server ended mid-transaction: SY_STORE_TRANSIENT', async () => {
    const admin = createPool(parseStoreUrl(url), 1);
    try {
      const error = await transaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        const ended = new Promise((resolve) => client.once('end', resolve));
        await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        await ended;
        return client.query('select 1').then(
          () => undefined,
          (e: unknown) => e,
        );
      }).catch((e: unknown) => e);
      assert.ok(error, 'the transaction failed');
      assert.equal(codeOf(transientError(error, 'the store')), 'SY_STORE_TRANSIENT');
    } finally {
      await admin.end();
    }
  });

  it('anything else is left as it is: a division by zero, a unique violation, a switchyard error', async () => {
    for (const error of [await failure('select 1/0'), await raising('23505')])
      assert.equal(transientError(error, 'the store'), error);
    const lost = Object.assign(new Error('x'), { code: 'SY_LEASE_LOST' });
    assert.equal(transientError(lost, 'the store'), lost);
  });

  it("the backlog's finish reports a deadlock the server raised as SY_STORE_TRANSIENT, and the retry goes through", async () => {
    const store = await openPostgresStore({ url, scope: freshScope('deadlock') });
    try {
      const backlog = await store.backlog();
      await backlog.publish(
        [{ task: 'g/d', planHash: 'hash-d', dependsOn: [], payload: null }],
        'test',
      );
      const taken = (await backlog.take('A', 60_000)) as Delivery;
      const s = store.context.s;
      // The server picks this finish as a deadlock's victim, once.
      await pool.query(`
        create table ${s}.test_victims (task text primary key);
        insert into ${s}.test_victims values ('g/d');
        create function ${s}.test_victim() returns trigger language plpgsql as $$
        begin
          if exists (select 1 from ${s}.test_victims where task = new.task) then
            raise exception 'deadlock detected' using errcode = '40P01';
          end if;
          return new;
        end $$;
        create trigger test_victim before update on ${s}.backlog
          for each row execute function ${s}.test_victim();`);
      await assert.rejects(backlog.finish('g/d', 'archived', fenceOf(taken.lease)), {
        code: 'SY_STORE_TRANSIENT',
      });
      assert.equal((await backlog.get('g/d'))?.status, 'taken');
      await pool.query(`delete from ${s}.test_victims`);
      await backlog.finish('g/d', 'archived', fenceOf(taken.lease));
      assert.equal((await backlog.get('g/d'))?.status, 'archived');
    } finally {
      await store.close();
    }
  });
});
