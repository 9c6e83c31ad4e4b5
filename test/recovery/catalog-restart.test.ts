import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { agentProcesses, TrialWorkspace, until } from './kit.js';

/**
 * The catalog changes while the dispatcher is down and an agent decided on the old revision
 * still runs. The restarted run re-attaches it, but its result is not accepted on the new
 * catalog: the task blocks with both revisions (exit 3). `--retry-blocked` re-decides, and
 * the task's complete.log lists every revision it used.
 */
/**
 * A workspace whose task g/x has a worker waiting for `.release-x`, and whose dispatcher was
 * SIGKILLed while that worker ran (the worker goes on; the test releases it).
 */
async function killedWhileWorkerRuns(prefix: string): Promise<TrialWorkspace> {
  const ws = new TrialWorkspace(prefix);
  ws.catalog({
    t: {
      cases: [
        { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
        {
          when: { role: 'worker', task: 'g/x' },
          steps: [{ waitFor: '.release-x' }, { fillChecklist: true }, { result: 'done' }],
        },
      ],
      steps: [{ fillChecklist: true }, { result: 'done' }],
    },
  });
  ws.task('g/x', { files: ['src/x.ts'] });
  const first = ws.start();
  onTestFinished(() => writeFileSync(ws.path('.release-x'), ''));
  await until(
    () => ws.events().some((e) => e.type === 'attempt.started' && e.task === 'g/x'),
    'worker started',
  );
  first.kill('SIGKILL');
  await first.exited;
  return ws;
}

describe('catalog changed across a restart under a running attempt', () => {
  it('blocks the re-attached task with both revisions; complete.log lists both after the retry', {
    timeout: 180_000,
  }, async () => {
    const ws = await killedWhileWorkerRuns('sy-catalog-restart-');
    const oldRevision = (
      ws.events().find((e) => e.type === 'run.started')!.catalog as {
        revision: string;
      }
    ).revision;

    // The catalog is edited while the worker still runs on the old revision.
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.t.model = 'model-t-v2';
    writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 1));

    const before = ws.events().length;
    const second = ws.start();
    onTestFinished(() => second.kill('SIGKILL'));
    await until(
      () =>
        ws
          .events()
          .slice(before)
          .some((e) => e.type === 'attempt.started' && e.task === 'g/x' && e.reattached),
      60_000,
      'worker re-attached',
    );
    writeFileSync(ws.path('.release-x'), '');
    const exit = await second.exited;
    expect(exit.code, second.stdout + second.stderr).toBe(3);
    const newRevision = (
      ws
        .events()
        .slice(before)
        .find((e) => e.type === 'run.started')!.catalog as { revision: string }
    ).revision;
    expect(newRevision).not.toBe(oldRevision);
    const blocked = ws.events().find((e) => e.type === 'task.blocked' && e.task === 'g/x');
    expect(blocked?.reason).toMatch(/^catalog changed/);
    const evidence = ((blocked?.evidence ?? []) as string[]).join('\n');
    expect(evidence).toContain(oldRevision);
    expect(evidence).toContain(newRevision);
    const state = JSON.parse(
      readFileSync(ws.path('agent-task/.switchyard/tasks/g/x.json'), 'utf8'),
    );
    expect(state.blocked.catalog).toEqual({ old: oldRevision, new: newRevision });
    // Nothing was decided or run on the new revision for this task.
    expect(ws.stages().filter((s) => s.role === 'review')).toEqual([]);

    const third = ws.start(['--retry-blocked']);
    const retried = await third.exited;
    expect(retried.code, third.stdout + third.stderr).toBe(0);
    const complete = readFileSync(ws.path('agent-task/archive/g/x/complete.log'), 'utf8');
    expect(complete).toContain(oldRevision);
    expect(complete).toContain(newRevision);
  });

  it('an attempt that ended while the dispatcher was down keeps its own agent/model in its FINISH row after a catalog change: blocked (exit 3), not a control failure', {
    timeout: 180_000,
  }, async () => {
    const ws = await killedWhileWorkerRuns('sy-catalog-finish-');
    // The worker finishes while no dispatcher runs (its FINISH row is not written), and the
    // catalog's model changes meanwhile.
    writeFileSync(ws.path('.release-x'), '');
    await until(() => agentProcesses(ws.dir).length === 0, 'the worker to end');
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.t.model = 'model-t-v2';
    writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 1));

    const second = ws.start();
    onTestFinished(() => second.kill('SIGKILL'));
    const exit = await second.exited;
    // The task fails closed on the changed catalog; the run has no control-plane failure.
    expect(exit.code, second.stdout + second.stderr).toBe(3);
    expect(ws.events().filter((e) => e.type === 'control.failure')).toEqual([]);
    const rows = readFileSync(ws.path('agent-task/g/WORK_LOG.md'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('| worker |'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('| START |');
    expect(rows[1]).toContain('| FINISH |');
    for (const line of rows) expect(line).toContain('claude-code/model-t |');
  });
});
