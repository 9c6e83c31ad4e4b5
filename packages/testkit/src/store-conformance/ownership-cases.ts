import assert from 'node:assert/strict';
import { fenceOf } from '@switchyard/core';
import { rejectsWith, withStores } from './harness.js';
import { admitted, escalation, locator, taskState, workLogRow, worktreeRecord } from './samples.js';
import type { ConformanceRunner, StoreAdapter } from './types.js';

const TTL = 30_000;

/** Compare-and-set of task states, leases (expiry, steal, renew, release) and fencing. */
export function ownershipCases(t: ConformanceRunner, adapter: StoreAdapter): void {
  t.it('task state: versioned compare-and-set; a stale version writes nothing', () =>
    withStores(adapter, async ({ a, b }) => {
      assert.equal(await a.tasks.get('g/a'), undefined);
      assert.equal(await a.tasks.put(taskState('g/a', 1), { expected: 0 }), 1);
      await rejectsWith(a.tasks.put(taskState('g/a', 2), { expected: 0 }), 'SY_STORE_CONFLICT');
      const read = await b.tasks.get('g/a');
      assert.equal(read?.version, 1);
      assert.equal(read?.value.selfcheckRetries, 1);
      // two holders that read version 1 race: exactly one write lands
      const results = await Promise.allSettled([
        a.tasks.put(taskState('g/a', 10), { expected: 1 }),
        b.tasks.put(taskState('g/a', 20), { expected: 1 }),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      assert.equal(rejected.reason.code, 'SY_STORE_CONFLICT');
      const after = await a.tasks.get('g/a');
      assert.equal(after?.version, 2);
      const winner = results[0]?.status === 'fulfilled' ? 10 : 20;
      assert.equal(after?.value.selfcheckRetries, winner);
      await b.tasks.put(taskState('f/z'), { expected: 0 });
      assert.deepEqual(
        (await a.tasks.list()).map((s) => [s.value.task, s.version]),
        [
          ['f/z', 1],
          ['g/a', 2],
        ],
      );
      await rejectsWith(a.tasks.delete('f/z', { expected: 7 }), 'SY_STORE_CONFLICT');
      await a.tasks.delete('f/z', { expected: 1 });
      assert.equal(await b.tasks.get('f/z'), undefined);
      assert.equal(await b.tasks.put(taskState('f/z'), { expected: 0 }), 1);
      // where a person finds a record: one place per task, the same for every handle
      assert.ok(a.tasks.locate('g/a').includes('g/a'));
      assert.equal(a.tasks.locate('g/a'), b.tasks.locate('g/a'));
      assert.notEqual(a.tasks.locate('g/a'), a.tasks.locate('f/z'));
    }),
  );

  t.it('task state: changes since a cursor name what was written and removed since', () =>
    withStores(adapter, async ({ a, b }) => {
      const tasksOf = (states: { value: { task: string; selfcheckRetries: number } }[]) =>
        states.map((s) => [s.value.task, s.value.selfcheckRetries]);
      const first = await b.tasks.changes();
      assert.deepEqual([first.changed, first.removed], [[], []]);
      await a.tasks.put(taskState('h/b', 1), { expected: 0 });
      await a.tasks.put(taskState('g/a', 1), { expected: 0 });
      const second = await b.tasks.changes(first.cursor);
      assert.deepEqual(tasksOf(second.changed), [
        ['g/a', 1],
        ['h/b', 1],
      ]);
      assert.deepEqual(
        second.changed.map((s) => s.version),
        [1, 1],
      );
      const quiet = await b.tasks.changes(second.cursor);
      assert.deepEqual([quiet.changed, quiet.removed], [[], []]);
      await a.tasks.put(taskState('g/a', 2), { expected: 1 });
      await a.tasks.delete('h/b', { expected: 1 });
      const third = await b.tasks.changes(quiet.cursor);
      assert.deepEqual(tasksOf(third.changed), [['g/a', 2]]);
      assert.equal(third.changed[0]?.version, 2);
      assert.deepEqual(third.removed, ['h/b']);
      // without a cursor: every state
      assert.deepEqual(tasksOf((await a.tasks.changes()).changed), [['g/a', 2]]);
      // removed and written again between two reads: changed
      await a.tasks.delete('g/a', { expected: 2 });
      await a.tasks.put(taskState('g/a', 5), { expected: 0 });
      const fourth = await b.tasks.changes(third.cursor);
      assert.deepEqual(tasksOf(fourth.changed), [['g/a', 5]]);
      assert.deepEqual(fourth.removed, []);
    }),
  );

  t.it('leases: held until expiry, then stolen with a greater token; renew and release', () =>
    withStores(adapter, async ({ a, b, clock }) => {
      const first = await a.leases.acquire('g/a', 'A', TTL);
      assert.ok(first.ok);
      const refused = await b.leases.acquire('g/a', 'B', TTL);
      assert.ok(!refused.ok);
      assert.equal(refused.held.holder, 'A');
      // the same holder gets its lease back with the same token
      const again = await a.leases.acquire('g/a', 'A', TTL);
      assert.ok(again.ok);
      assert.equal(again.lease.token, first.lease.token);
      clock.advance(TTL / 2);
      const [renewed] = await a.leases.renew([first.lease], TTL);
      assert.ok(renewed && renewed.expiresAt === clock.now() + TTL);
      clock.advance(TTL / 2 + 1);
      assert.ok(!(await b.leases.acquire('g/a', 'B', TTL)).ok, 'renewal moved the expiry');
      clock.advance(TTL);
      // expired but nobody took it: the holder may still renew
      assert.ok((await a.leases.renew([first.lease], TTL))[0]);
      clock.advance(TTL + 1);
      const stolen = await b.leases.acquire('g/a', 'B', TTL);
      assert.ok(stolen.ok);
      assert.ok(stolen.lease.token > first.lease.token);
      assert.deepEqual(await a.leases.renew([first.lease], TTL), [undefined]);
      assert.equal((await a.leases.get('g/a'))?.holder, 'B');
      // a release by the old holder changes nothing; the holder's own release frees it
      await a.leases.release(first.lease);
      assert.equal((await b.leases.get('g/a'))?.token, stolen.lease.token);
      await b.leases.release(stolen.lease);
      assert.equal(await a.leases.get('g/a'), undefined);
      const third = await a.leases.acquire('g/a', 'A', TTL);
      assert.ok(third.ok && third.lease.token > stolen.lease.token, 'tokens never repeat');
      await a.leases.acquire('f/z', 'A', TTL);
      assert.deepEqual(
        (await b.leases.list()).map((l) => l.task),
        ['f/z', 'g/a'],
      );
    }),
  );

  t.it('fencing: every write with a stale token is refused and changes nothing', () =>
    withStores(adapter, async ({ a, b, clock, location }) => {
      const old = await a.leases.acquire('g/a', 'A', TTL);
      assert.ok(old.ok);
      const stale = { fence: fenceOf(old.lease) };
      const version = await a.tasks.put(taskState('g/a', 1), { expected: 0, ...stale });
      clock.advance(TTL + 1);
      const taken = await b.leases.acquire('g/a', 'B', TTL);
      assert.ok(taken.ok);
      const fresh = { fence: fenceOf(taken.lease) };
      await rejectsWith(
        a.tasks.put(taskState('g/a', 99), { expected: version, ...stale }),
        'SY_LEASE_LOST',
      );
      await rejectsWith(a.tasks.delete('g/a', { expected: version, ...stale }), 'SY_LEASE_LOST');
      await rejectsWith(a.claims.tryClaim('g/a', ['src/a.ts'], stale), 'SY_LEASE_LOST');
      await rejectsWith(a.events.append(admitted('g/a', 1), stale), 'SY_LEASE_LOST');
      await rejectsWith(a.workLog.append('g', [workLogRow('g/a', 1)], stale), 'SY_LEASE_LOST');
      const ref = { attemptId: 'a1', captureDir: `${location.captureRoot}/a1` };
      await rejectsWith(a.attempts.put(ref, locator('g/a', 'a1'), stale), 'SY_LEASE_LOST');
      const { bundle, interview } = escalation('g/a');
      await rejectsWith(a.escalations.put(bundle, interview, stale), 'SY_LEASE_LOST');
      await rejectsWith(a.isolation.putRecord(worktreeRecord('g/a'), stale), 'SY_LEASE_LOST');
      await rejectsWith(
        a.targets.coolDown('t1', '2026-12-02T00:00:00Z', 'q', stale),
        'SY_LEASE_LOST',
      );
      // nothing of it landed
      assert.equal((await b.tasks.get('g/a'))?.value.selfcheckRetries, 1);
      assert.deepEqual(await b.claims.list(), []);
      assert.deepEqual((await b.events.read()).events, []);
      assert.deepEqual(await b.workLog.read('g'), []);
      assert.equal(await b.escalations.get('g/a'), undefined);
      assert.equal(await b.isolation.getRecord('g/a'), undefined);
      assert.equal(await b.targets.get('t1'), undefined);
      // the new holder's writes go through
      assert.equal(
        await b.tasks.put(taskState('g/a', 2), { expected: version, ...fresh }),
        version + 1,
      );
      assert.ok((await b.claims.tryClaim('g/a', ['src/a.ts'], fresh)).ok);
      await b.events.append(admitted('g/a', 2), fresh);
      // a released lease fences its old token out too
      await b.leases.release(taken.lease);
      await rejectsWith(
        b.tasks.put(taskState('g/a', 3), { expected: version + 1, ...fresh }),
        'SY_LEASE_LOST',
      );
    }),
  );
}
