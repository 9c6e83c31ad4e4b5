import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { storeStatus } from '../src/admin.js';
import { createPool, type Pool } from '../src/db.js';
import { openPostgresStore, type PostgresStore } from '../src/store.js';
import { parseStoreUrl } from '../src/url.js';
import { freshScope, testDatabase } from './database.js';

// What `store status` and `status --store` read: a lease whose holder stopped renewing it is
// not live, by the database's clock.
let url = '';
let pool: Pool;
const stores: PostgresStore[] = [];
beforeAll(async () => {
  url = await testDatabase();
  pool = createPool(parseStoreUrl(url), 1);
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await pool?.end();
});

/** Polls the database until `statement` returns true (no wall-clock margin of the test's). */
async function untilTrue(statement: string, values: unknown[]): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ ok: boolean }>(statement, values);
    if (rows[0]?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('leases as the status commands show them', () => {
  it('store status counts only live leases and names the server version; the backlog list marks a taken task whose lease expired', async () => {
    const scope = freshScope('status');
    const store = await openPostgresStore({ url, scope });
    stores.push(store);
    const backlog = await store.backlog();
    const task = (id: string) => ({ task: id, planHash: id, dependsOn: [], payload: {} });
    await backlog.publish([task('g/live'), task('g/dead')], 'test');
    const live = await backlog.take('host/1/-/run-a', 600_000);
    const dead = await backlog.take('host/2/-/run-b', 1);
    assert.ok(live && dead);
    // The second holder never renews: its lease ends by the database's clock.
    await untilTrue(
      `select expires_at <= (extract(epoch from clock_timestamp()) * 1000) as ok
       from switchyard.leases where scope = $1 and task = $2`,
      [scope, dead.entry.task],
    );
    const status = await storeStatus(url);
    assert.match(status.server ?? '', /^\d+/);
    const counts = status.scopes.find((s) => s.scope === scope);
    assert.deepEqual(
      { taken: counts?.backlog.taken, leases: counts?.leases },
      { taken: 2, leases: 1 },
    );
    const listed = await backlog.list();
    assert.deepEqual(
      listed.map((e) => [e.task, e.status, e.holder, e.leaseExpired]),
      [
        [dead.entry.task, 'taken', 'host/2/-/run-b', true],
        [live.entry.task, 'taken', 'host/1/-/run-a', undefined],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });
});
