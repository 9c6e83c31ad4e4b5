import assert from 'node:assert/strict';
import type { WorkLogRow } from '@switchyard/core';
import { withStores } from './harness.js';
import {
  admitted,
  escalation,
  journal,
  locator,
  sessionPlan,
  sessionStatus,
  workLogRow,
  worktreeRecord,
} from './samples.js';
import type { ConformanceRunner, StoreAdapter } from './types.js';

/** Records read back as written: work log, attempt index, sessions, escalations, isolation. */
export function recordCases(t: ConformanceRunner, adapter: StoreAdapter): void {
  t.it('work log: rows per group in order; archive closes the log', () =>
    withStores(adapter, async ({ a, b }) => {
      await a.workLog.append('g', [workLogRow('g/a', 1), workLogRow('g/b', 2)]);
      await b.workLog.append('g', [{ ...workLogRow('g/a', 3), kind: 'FINISH', result: 'success' }]);
      await a.workLog.append('h', [workLogRow('h/x', 1)]);
      await a.workLog.flush();
      const rows = await b.workLog.read('g');
      assert.deepEqual(
        rows.map((r) => [r.task, r.kind, r.attempt, r.result]),
        [
          ['g/a', 'START', '1', 'running'],
          ['g/b', 'START', '2', 'running'],
          ['g/a', 'FINISH', '3', 'success'],
        ],
      );
      assert.equal(rows[0]?.time.toISOString(), workLogRow('g/a', 1).time.toISOString());
      assert.equal(rows[0]?.agentModel, 'agent-a/model-a');
      assert.ok(await a.workLog.archive('g'));
      assert.deepEqual(await b.workLog.read('g'), []);
      assert.equal(await b.workLog.archive('g'), undefined);
      assert.equal((await a.workLog.read('h')).length, 1);
    }),
  );

  t.it('work log: START rows without FINISH across the logs read, groups with an open log', () =>
    withStores(adapter, async ({ a, b }) => {
      const finish = (row: WorkLogRow): WorkLogRow => ({ ...row, kind: 'FINISH', result: 'ok' });
      const [a1, a2] = [workLogRow('g/a', 1), workLogRow('g/b', 2)];
      assert.deepEqual(await a.workLog.groups(), []);
      assert.deepEqual(await a.workLog.openStarts('g'), []);
      // A FINISH pairs with its START whatever the plan-loop cap says.
      await a.workLog.append('g', [{ ...a1, maxPlanLoops: 3 }, a2]);
      await a.workLog.append('g', [{ ...finish(a1), maxPlanLoops: 4 }]);
      await a.workLog.append('h', [workLogRow('h/x', 1), finish(workLogRow('h/x', 1))]);
      assert.deepEqual(await b.workLog.groups(), ['g', 'h']);
      const open = await b.workLog.openStarts('g');
      assert.deepEqual(
        open.map((o) => [o.row.task, o.row.attempt, o.row.locator, o.row.agentModel]),
        [['g/b', '2', a2.locator, a2.agentModel]],
      );
      assert.ok(open[0]?.log);
      assert.deepEqual(await b.workLog.openStarts('h'), []);
      // An archived log counts only with `archivedSince`, when it was last written since then.
      const archived = await a.workLog.archive('g');
      assert.ok(archived);
      assert.deepEqual(await b.workLog.groups(), ['h']);
      await a.workLog.append('g', [workLogRow('g/c', 3)]);
      assert.deepEqual(
        (await b.workLog.openStarts('g')).map((o) => o.row.attempt),
        ['3'],
      );
      const withArchived = await b.workLog.openStarts('g', { archivedSince: 0 });
      assert.deepEqual(withArchived.map((o) => o.row.attempt).sort(), ['2', '3']);
      assert.equal(withArchived.find((o) => o.row.attempt === '2')?.log, archived);
      assert.notEqual(withArchived.find((o) => o.row.attempt === '3')?.log, archived);
      const later = Date.parse('2100-01-01T00:00:00.000Z');
      assert.deepEqual(
        (await b.workLog.openStarts('g', { archivedSince: later })).map((o) => o.row.attempt),
        ['3'],
      );
      // The log was archived between a START and its FINISH (another machine ended meanwhile):
      // the FINISH in the next log pairs with it.
      await a.workLog.append('g', [finish(a2)]);
      assert.deepEqual(
        (await b.workLog.openStarts('g', { archivedSince: 0 })).map((o) => o.row.attempt),
        ['3'],
      );
    }),
  );

  t.it('attempt index: a locator replaced whole, listed per task by start time', () =>
    withStores(adapter, async ({ a, b, location }) => {
      const dir = (id: string) => `${location.captureRoot}/${id}`;
      const refs = ['a2', 'a1', 'b1'].map((id) => ({ attemptId: id, captureDir: dir(id) }));
      const [r2, r1, rb] = refs as [(typeof refs)[0], (typeof refs)[0], (typeof refs)[0]];
      assert.equal(await a.attempts.get(r1), undefined);
      await a.attempts.put(r2, locator('g/a', 'a2', '2026-12-01T10:05:00.000Z'), {
        durable: false,
      });
      await a.attempts.put(r1, locator('g/a', 'a1', '2026-12-01T10:01:00.000Z'));
      await a.attempts.put(rb, locator('g/b', 'b1'));
      await b.attempts.put(r1, {
        ...locator('g/a', 'a1', '2026-12-01T10:01:00.000Z'),
        result: 'success',
      });
      assert.equal((await a.attempts.get(r1))?.result, 'success');
      assert.deepEqual(
        (await b.attempts.list('g/a')).map((e) => e.locator.attemptId),
        ['a1', 'a2'],
      );
      assert.equal((await b.attempts.list()).length, 3);
    }),
  );

  t.it('sessions: plan once, status replaced, events appended in order', () =>
    withStores(adapter, async ({ a, b }) => {
      const id = 's-20261201T100000Z-0a0b';
      const other = 's-20261201T090000Z-0c0d';
      await a.sessions.create(sessionPlan(id), sessionStatus(id, 'running'));
      await a.sessions.create(sessionPlan(other), sessionStatus(other, 'finished'));
      await b.sessions.putStatus({ ...sessionStatus(id, 'blocked'), runs: ['run-1'] });
      assert.deepEqual(await a.sessions.getPlan(id), sessionPlan(id));
      assert.equal((await a.sessions.getStatus(id))?.state, 'blocked');
      assert.deepEqual(await a.sessions.ids(), [other, id]);
      for (let i = 1; i <= 3; i++)
        await (i % 2 ? a : b).sessions.appendEvent(id, admitted('g/a', i));
      assert.deepEqual(
        (await b.sessions.readEvents(id)).map((e) => (e.type === 'task.admitted' ? e.planLoop : 0)),
        [1, 2, 3],
      );
      assert.equal(await a.sessions.getPlan('s-20261201T110000Z-ffff'), undefined);
      // the monitor a run serves: absent, recorded, replaced whole when it stops
      assert.equal(await b.sessions.getMonitor(id), undefined);
      const monitor = {
        schema_version: 1 as const,
        url: 'http://127.0.0.1:4100/?token=t',
        port: 4100,
        pid: 4242,
        startedAt: '2026-12-01T10:00:00.000Z',
      };
      await a.sessions.putMonitor(id, monitor);
      assert.deepEqual(await b.sessions.getMonitor(id), monitor);
      await b.sessions.putMonitor(id, { ...monitor, stoppedAt: '2026-12-01T11:00:00.000Z' });
      assert.deepEqual(await a.sessions.getMonitor(id), {
        ...monitor,
        stoppedAt: '2026-12-01T11:00:00.000Z',
      });
      assert.equal(await a.sessions.getMonitor(other), undefined);
    }),
  );

  t.it('escalations: bundle and interview stored together; a resolution recorded in both', () =>
    withStores(adapter, async ({ a, b }) => {
      const { bundle, interview } = escalation('g/a');
      await a.escalations.put(bundle, interview);
      await a.escalations.put(escalation('f/z').bundle, escalation('f/z').interview);
      assert.deepEqual(await b.escalations.get('g/a'), { bundle, interview });
      assert.deepEqual(await b.escalations.tasks(), ['f/z', 'g/a']);
      await b.escalations.resolve('g/a', 'retry', new Date('2026-12-02T00:00:00.000Z'), 'ann');
      const resolved = await a.escalations.get('g/a');
      const resolution = { action: 'retry', at: '2026-12-02T00:00:00.000Z', by: 'ann' };
      assert.deepEqual(resolved?.bundle.resolution, resolution);
      assert.deepEqual(resolved?.interview?.resolution, resolution);
      assert.ok(a.escalations.locate('g/a').bundle.length > 0);
      // A person's words go with the answer; a task without an escalation stays without one.
      await a.escalations.resolve('f/z', 'skip', new Date('2026-12-02T01:00:00.000Z'), 'bo', 'why');
      const noted = { action: 'skip', at: '2026-12-02T01:00:00.000Z', by: 'bo', note: 'why' };
      assert.deepEqual((await b.escalations.get('f/z'))?.interview?.resolution, noted);
      assert.deepEqual((await b.escalations.get('f/z'))?.bundle.resolution, noted);
      await b.escalations.resolve('g/none', 'skip', new Date('2026-12-02T02:00:00.000Z'));
      assert.equal(await a.escalations.get('g/none'), undefined);
      assert.deepEqual(await a.escalations.tasks(), ['f/z', 'g/a']);
    }),
  );

  t.it('isolation: worktree records and apply journals replaced whole, removed', () =>
    withStores(adapter, async ({ a, b }) => {
      await a.isolation.putRecord(worktreeRecord('g/a'));
      await a.isolation.putRecord(worktreeRecord('f/z'), { durable: false });
      await b.isolation.putRecord({ ...worktreeRecord('g/a'), state: 'applied' });
      assert.equal((await a.isolation.getRecord('g/a'))?.state, 'applied');
      assert.deepEqual(await b.isolation.recordTasks(), ['f/z', 'g/a']);
      await a.isolation.putJournal(journal('g/a', 'commit'), { durable: false });
      await a.isolation.putJournal({
        ...journal('g/a', 'advance'),
        history: [
          ...journal('g/a', 'commit').history,
          { step: 'advance', at: '2026-12-01T10:00:01.000Z' },
        ],
      });
      assert.equal((await b.isolation.getJournal('g/a'))?.step, 'advance');
      assert.equal((await b.isolation.getJournal('g/a'))?.history.length, 2);
      assert.deepEqual(await b.isolation.journalTasks(), ['g/a']);
      await b.isolation.removeJournal('g/a');
      await b.isolation.removeRecord('f/z');
      await b.isolation.removeRecord('f/none');
      assert.equal(await a.isolation.getJournal('g/a'), undefined);
      assert.deepEqual(await a.isolation.recordTasks(), ['g/a']);
    }),
  );

  t.it('schedules fire once; targets cool down to the later instant', () =>
    withStores(adapter, async ({ a, b }) => {
      const schedule = {
        id: 'nightly',
        cron: '0 2 * * *',
        workspace: '/w',
        runArgs: [],
        createdAt: '2026-12-01T00:00:00.000Z',
      };
      await a.schedules.put(schedule);
      await a.schedules.put({ ...schedule, id: 'hourly', cron: '0 * * * *' });
      assert.deepEqual((await b.schedules.list()).map((s) => s.id).sort(), ['hourly', 'nightly']);
      const fire = '2026-12-02T02:00:00.000Z';
      const claims = await Promise.all([
        a.schedules.claimFire('nightly', fire),
        b.schedules.claimFire('nightly', fire),
      ]);
      assert.deepEqual(claims.filter(Boolean), [true], 'one daemon fires it');
      assert.equal(await a.schedules.claimFire('nightly', fire), false);
      assert.equal((await b.schedules.runs()).nightly?.lastFireAt, fire);
      await b.schedules.putRuns('nightly', {
        lastFireAt: fire,
        lastExit: 0,
        missed: 1,
        missedAt: [fire],
      });
      assert.equal((await a.schedules.runs()).nightly?.lastExit, 0);
      // A daemon's stale record never moves the last fire back: the fired time stays fired.
      await a.schedules.putRuns('nightly', {
        lastFireAt: '2026-12-01T02:00:00.000Z',
        missed: 0,
        missedAt: [],
      });
      assert.equal((await b.schedules.runs()).nightly?.lastFireAt, fire);
      assert.equal(await b.schedules.claimFire('nightly', fire), false);
      assert.equal(await a.schedules.remove('hourly'), true);
      assert.equal(await a.schedules.remove('hourly'), false);
      assert.deepEqual(
        (await b.schedules.list()).map((s) => s.id),
        ['nightly'],
      );

      await a.targets.coolDown('t1', '2026-12-01T12:00:00.000Z', 'provider-quota');
      await b.targets.coolDown('t1', '2026-12-01T11:00:00.000Z', 'provider-connection');
      const t1 = await a.targets.get('t1');
      assert.equal(t1?.coolDownUntil, '2026-12-01T12:00:00.000Z');
      assert.equal(t1?.reason, 'provider-quota');
      await b.targets.park('t2', '2026-12-01T13:00:00.000Z');
      assert.deepEqual(
        (await a.targets.list()).map((s) => s.target),
        ['t1', 't2'],
      );
      await a.targets.clear('t1');
      assert.equal(await b.targets.get('t1'), undefined);
    }),
  );
}
