import type { RunEvent, StoredEvent } from '@switchyard/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../src/db.js';
import { openPostgresStore, type PostgresStore } from '../src/index.js';
import { listenLasting } from '../src/pg-listen.js';
import { parseStoreUrl } from '../src/url.js';
import { freshScope, testDatabase } from './database.js';

// The server ends the LISTEN connection (a restart, a dropped network): the follower and the
// backlog watch take a new one and go on, missing and repeating nothing.
let url = '';
let admin: Pool;
const stores: PostgresStore[] = [];
beforeAll(async () => {
  url = await testDatabase();
  admin = createPool(parseStoreUrl(url), 1);
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
  await admin?.end();
});

const open = async () => {
  const store = await openPostgresStore({ url, scope: freshScope() });
  stores.push(store);
  return store;
};

/** Waits until `condition` holds, checking every 20 ms (the test's timeout ends a wait that never does). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Backends of this database LISTENing on `channel`. */
async function listeners(channel: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    `select pid from pg_stat_activity
     where datname = current_database() and query ilike $1 and pid <> pg_backend_pid()`,
    [`listen ${channel}%`],
  );
  return rows.map((row) => row.pid);
}

async function terminate(pids: number[]): Promise<void> {
  for (const pid of pids) await admin.query('select pg_terminate_backend($1)', [pid]);
}

const event = (n: number) => ({ type: 'run.started', run_id: `r${n}` }) as unknown as RunEvent;

describe('LISTEN connections the server ends', () => {
  it('followEvents takes a new connection and reads on: events appended while it was down and after arrive, each once, in order', async () => {
    const store = await open();
    const seen: StoredEvent[] = [];
    const follower = await store.followEvents(0, (e) => seen.push(e));
    try {
      const appended = [await store.events.append(event(1))];
      await until(() => seen.length === 1);
      const before = await listeners('switchyard_events');
      expect(before).toHaveLength(1);

      await terminate(before);
      // Appended while the connection is gone or coming back: no notification reaches it.
      appended.push(await store.events.append(event(2)));
      appended.push(await store.events.append(event(3)));
      await until(async () => {
        const now = await listeners('switchyard_events');
        return now.length === 1 && now[0] !== before[0];
      });
      await until(() => seen.length >= 3);
      // Appended on the new connection: the notification path works again.
      appended.push(await store.events.append(event(4)));
      await until(() => seen.length >= 4);

      expect(seen.map((e) => e.seq)).toEqual(appended);
      expect(seen.map((e) => (e.event as { run_id?: string }).run_id)).toEqual([
        'r1',
        'r2',
        'r3',
        'r4',
      ]);
    } finally {
      await follower.stop();
    }
    // Stopped: no LISTEN connection is left checked out.
    expect(await listeners('switchyard_events')).toEqual([]);
  });

  it('the backlog watch takes a new connection, wakes once on resuming, and hears later changes', async () => {
    const store = await open();
    const backlog = await store.backlog();
    let changes = 0;
    const watching = await backlog.watch(() => {
      changes += 1;
    });
    try {
      const before = await listeners('switchyard_backlog');
      expect(before).toHaveLength(1);
      await terminate(before);
      await until(async () => {
        const now = await listeners('switchyard_backlog');
        return now.length === 1 && now[0] !== before[0];
      });
      // The wake-up for what may have changed while it was down.
      await until(() => changes === 1);
      await backlog.publish([{ task: 'g/a', planHash: 'h', dependsOn: [], payload: {} }], 'm');
      await until(() => changes === 2);
    } finally {
      await watching.stop();
    }
    expect(await listeners('switchyard_backlog')).toEqual([]);
  });

  it('a resume callback that throws ends nothing: the listener goes on hearing', async () => {
    const pool = createPool(parseStoreUrl(url), 2);
    const heard: (string | undefined)[] = [];
    let resumed = 0;
    const listening = await listenLasting(
      pool,
      'switchyard_probe',
      (payload) => heard.push(payload),
      () => {
        resumed += 1;
        throw new Error('the caller failed');
      },
    );
    try {
      const before = await listeners('switchyard_probe');
      await terminate(before);
      await until(() => resumed === 1);
      await admin.query(`select pg_notify('switchyard_probe', 'after')`);
      await until(() => heard.length === 1);
      expect(heard).toEqual(['after']);
      // One connection listens again, resumed once: the failure made no second one.
      expect(await listeners('switchyard_probe')).toHaveLength(1);
      expect(resumed).toBe(1);
    } finally {
      await listening.stop();
      await pool.end();
    }
  });

  it('a LISTEN that fails gives its connection back, so the pool ends', async () => {
    const pool = createPool(parseStoreUrl(url), 2);
    // Not an identifier: the server refuses the statement.
    await expect(
      listenLasting(
        pool,
        '1 no',
        () => undefined,
        () => undefined,
      ),
    ).rejects.toThrow();
    expect(pool.totalCount - pool.idleCount).toBe(0);
    await pool.end();
  });
});
