import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createPool, type Pool, transaction } from '../src/db.js';
import { parseStoreUrl } from '../src/url.js';
import { testDatabase } from './database.js';

// A dispatcher frozen inside a transaction past `idle_in_transaction_session_timeout` wakes up
// to a connection the server has ended: that transaction fails, the process lives on.
let pools: Pool[] = [];
let url = '';
beforeAll(async () => {
  url = await testDatabase();
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  pools = [];
});
const pool = (max: number) => {
  const created = createPool(parseStoreUrl(url), max);
  pools.push(created);
  return created;
};

describe('a connection the server ends while a transaction holds it', () => {
  it('fails that transaction (no uncaught error), and the pool goes on with a new connection', async () => {
    const store = pool(1);
    const admin = pool(1);
    await assert.rejects(
      transaction(store, async (client) => {
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        const ended = new Promise((resolve) => client.once('end', resolve));
        // Between two statements of the transaction, as when the process was stopped there.
        await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        await ended;
        await client.query('select 1');
      }),
    );
    const { rows } = await store.query<{ one: number }>('select 1 as one');
    assert.equal(rows[0]?.one, 1);
  });
});
