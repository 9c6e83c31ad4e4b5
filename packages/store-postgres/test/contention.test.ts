import assert from 'node:assert/strict';
import { fenceOf, newTaskState } from '@switchyard/core';
import { afterEach, beforeAll, describe, it } from 'vitest';
import type { BacklogTask } from '../src/backlog-types.js';
import { openPostgresStore, type PostgresStore } from '../src/index.js';
import { type Holder, startHolder } from './child.js';
import { freshScope, testDatabase } from './database.js';

// Several processes on one PostgreSQL store: what must hold across machines.
let url = '';
const started: Holder[] = [];
const opened: PostgresStore[] = [];
beforeAll(async () => {
  url = await testDatabase();
});
afterEach(async () => {
  for (const holder of started.splice(0)) {
    holder.kill('SIGCONT');
    holder.kill('SIGKILL');
  }
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const holder = (...args: string[]) => {
  const h = startHolder(args);
  started.push(h);
  return h;
};
const open = async (scope: string, now?: () => number) => {
  const store = await openPostgresStore({ url, scope, ...(now ? { now } : {}) });
  opened.push(store);
  return store;
};
const task = (id: string, planHash: string, dependsOn: string[] = []): BacklogTask => ({
  task: id,
  planHash,
  dependsOn,
  payload: { plan: `# ${id}` },
});

describe('postgres store under contention', () => {
  it('claim race between two processes: each contested path goes to exactly one', async () => {
    const scope = freshScope('race');
    const rounds = 30;
    const racers = ['a', 'b'].map((name) => holder('claim-race', url, scope, name, String(rounds)));
    await Promise.all(racers.map((r) => r.until((line) => 'ready' in line)));
    for (const r of racers) r.send('go');
    const [a, b] = (await Promise.all(racers.map((r) => r.until((line) => 'results' in line)))).map(
      (line) => line.results as boolean[],
    ) as [boolean[], boolean[]];
    const store = await open(scope);
    for (let round = 0; round < rounds; round++) {
      assert.notEqual(a[round], b[round], `round ${round}: exactly one process won`);
      const winner = a[round] ? 'a' : 'b';
      const loser = a[round] ? 'b' : 'a';
      assert.equal(await store.claims.holderOf(`src/round-${round}.ts`), `${winner}/t${round}`);
      assert.equal(
        await store.claims.holderOf(`src/${loser}-${round}.ts`),
        undefined,
        'all or none',
      );
    }
  });

  it('duplicate publish: same id and plan is one task, delivered once; another plan is refused whole', async () => {
    const scope = freshScope('publish');
    const tasks = [task('g/a', 'hash-a'), task('g/b', 'hash-b', ['g/a'])];
    const publishers = ['m1', 'm2'].map((name) =>
      holder('publish', url, scope, name, JSON.stringify(tasks)),
    );
    await Promise.all(publishers.map((p) => p.until((line) => 'ready' in line)));
    for (const p of publishers) p.send('go');
    const outcomes = (
      await Promise.all(publishers.map((p) => p.until((line) => 'outcomes' in line)))
    ).flatMap((line) => line.outcomes as { task: string; outcome: string }[]);
    for (const id of ['g/a', 'g/b'])
      assert.deepEqual(
        outcomes
          .filter((o) => o.task === id)
          .map((o) => o.outcome)
          .sort(),
        ['existing', 'published'],
        id,
      );
    const store = await open(scope);
    const backlog = await store.backlog();
    assert.deepEqual(
      (await backlog.list()).map((e) => [e.task, e.status]),
      [
        ['g/a', 'ready'],
        ['g/b', 'waiting'],
      ],
    );
    // the same publish again changes nothing; a changed plan is refused and nothing lands
    assert.deepEqual(
      (await backlog.publish(tasks, 'm3')).map((o) => o.outcome),
      ['existing', 'existing'],
    );
    await assert.rejects(
      backlog.publish([task('g/a', 'hash-a2'), task('g/c', 'hash-c')], 'm3'),
      (error: { code?: string; message: string }) =>
        error.code === 'SY_BACKLOG_CONFLICT' && /g\/a/.test(error.message),
    );
    assert.equal(await backlog.get('g/c'), undefined);
    // three publishes, one delivery
    const first = await backlog.take('X', 30_000);
    assert.equal(first?.entry.task, 'g/a');
    assert.equal(await backlog.take('Y', 30_000), undefined, 'g/a is delivered once; g/b waits');
    // archiving g/a (fenced) delivers g/b, with a wake-up to watchers
    let woken = 0;
    const watch = await backlog.watch(() => {
      woken++;
    });
    try {
      const stale = { task: 'g/a', token: (first?.lease.token ?? 0) - 1 };
      await assert.rejects(backlog.finish('g/a', 'archived', stale), { code: 'SY_LEASE_LOST' });
      await backlog.finish('g/a', 'archived', fenceOf(first!.lease));
      const next = await backlog.take('Y', 30_000);
      assert.equal(next?.entry.task, 'g/b');
      assert.ok(next && next.lease.token > first!.lease.token);
      while (woken === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await watch.stop();
    }
  });

  it('a SIGKILLed holder loses its task to the next taker once its lease expired', async () => {
    const scope = freshScope('kill');
    let clock = Date.now();
    const store = await open(scope, () => clock);
    const backlog = await store.backlog();
    await backlog.publish([task('g/k', 'hash-k')], 'test');
    const child = holder('holder', url, scope, 'g/k');
    const { lease } = (await child.until((line) => 'lease' in line)) as unknown as {
      lease: { token: number; expiresAt: number };
    };
    await child.until((line) => line.step === 2);
    child.kill('SIGKILL');
    await child.exited;
    assert.equal(await backlog.take('B', 30_000), undefined, 'the dead holder’s lease still runs');
    clock = lease.expiresAt + 1;
    const taken = await backlog.take('B', 30_000);
    assert.equal(taken?.entry.task, 'g/k');
    assert.ok(taken && taken.lease.token > lease.token);
    const state = await store.tasks.get('g/k');
    await assert.rejects(
      store.tasks.put(newTaskState('g/k', new Date()), {
        expected: state?.version ?? 0,
        fence: { task: 'g/k', token: lease.token },
      }),
      { code: 'SY_LEASE_LOST' },
    );
    assert.equal(
      await store.tasks.put(newTaskState('g/k', new Date()), {
        expected: state?.version ?? 0,
        fence: fenceOf(taken.lease),
      }),
      (state?.version ?? 0) + 1,
    );
  });

  it('a SIGSTOPped holder that wakes after losing its lease lands nothing', async () => {
    const scope = freshScope('stop');
    let clock = Date.now();
    const store = await open(scope, () => clock);
    const backlog = await store.backlog();
    await backlog.publish([task('g/s', 'hash-s')], 'test');
    const child = holder('holder', url, scope, 'g/s');
    const { lease } = (await child.until((line) => 'lease' in line)) as unknown as {
      lease: { token: number; expiresAt: number };
    };
    await child.until((line) => line.step === 3);
    child.kill('SIGSTOP');
    // Frozen, possibly inside a transaction holding the lease row: the server ends that
    // session (idle in transaction), then the steal goes through.
    clock = lease.expiresAt + 1;
    const taken = await backlog.take('B', 30_000);
    assert.ok(taken && taken.lease.token > lease.token);
    const fence = fenceOf(taken.lease);
    const before = await store.tasks.get('g/s');
    const version = await store.tasks.put(
      { ...newTaskState('g/s', new Date()), selfcheckRetries: -1 },
      { expected: before?.version ?? 0, fence },
    );
    const mark = await store.events.append(
      { type: 'task.admitted', at: new Date().toISOString(), runId: 'B', task: 'g/s', planLoop: 1 },
      { fence },
    );
    const claimsBefore = (await store.claims.list())[0]?.paths ?? [];
    child.kill('SIGCONT');
    const stopped = await child.until((line) => 'stopped' in line);
    assert.equal(stopped.code, 'SY_LEASE_LOST');
    await child.exited;
    // nothing of the woken holder landed after the steal
    const after = await store.tasks.get('g/s');
    assert.equal(after?.version, version);
    assert.equal(after?.value.selfcheckRetries, -1);
    assert.deepEqual(
      (await store.events.read({ after: mark })).events,
      [],
      'no event after the new holder’s',
    );
    assert.deepEqual((await store.claims.list())[0]?.paths ?? [], claimsBefore);
  });
});
