import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const work = [{ fillChecklist: true }];

describe('B.10: a work-log failure holds its task; the run goes on', { timeout: 120_000 }, () => {
  it('other tasks are still scheduled and archived, the run exits 1, the next run finishes the held task', async () => {
    const ws = new Workspace();
    ws.catalog({
      only: {
        scenario: {
          cases: [
            approve,
            { when: { role: 'worker', task: 'g/log' }, steps: [{ waitFor: 'release' }, ...work] },
            { when: { role: 'worker', task: 'h/one' }, steps: [{ waitFor: 'release2' }, ...work] },
          ],
          steps: work,
        },
      },
    });
    ws.task('g/log', { files: ['src/log.ts'] });
    ws.task('h/one', { files: ['src/one.ts'] });
    ws.task('h/two', { files: ['src/two.ts'], dependsOn: ['one'] });
    const run = ws.run(['--max-parallel', '2']);
    // Once g/log's START row is written, its group log becomes a dangling link (refused, never
    // followed): its FINISH row is queued and its next START row cannot be written.
    const log = ws.path('agent-task', 'g', 'WORK_LOG.md');
    await vi.waitFor(() => expect(readFileSync(log, 'utf8')).toContain('START'), {
      timeout: 30_000,
      interval: 50,
    });
    rmSync(log);
    symlinkSync(ws.path('missing', 'dir', 'log.md'), log);
    writeFileSync(ws.path('release'), '');
    await vi.waitFor(
      () => expect(ws.events().some((e) => e.type === 'control.failure')).toBe(true),
      { timeout: 30_000, interval: 50 },
    );
    // Only now does h/one finish: h/two can start only after the hold.
    writeFileSync(ws.path('release2'), '');
    const result = await run;
    expect(result.code, result.stdout).toBe(1);
    const events = ws.events();
    const held = events.findIndex((e) => e.type === 'control.failure');
    expect(events[held]).toMatchObject({ code: 'SY_WORK_LOG' });
    expect(
      events.findIndex((e) => e.type === 'attempt.started' && e.task === 'h/two'),
      'a task was started after the hold',
    ).toBeGreaterThan(held);
    expect(ws.exists('agent-task/archive/h/one/complete.log')).toBe(true);
    expect(ws.exists('agent-task/archive/h/two/complete.log')).toBe(true);
    // Held, not blocked, nothing charged to the agent's stages.
    expect(events.filter((e) => e.type === 'task.blocked')).toEqual([]);
    const state = JSON.parse(ws.read('agent-task/.switchyard/tasks/g/log.json'));
    expect(state.blocked).toBeUndefined();
    expect(state.failures).toMatchObject({ worker: 0, review: 0 });

    // With the log repaired, the next run continues the held task to its archive.
    rmSync(log);
    const again = await ws.run();
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(ws.exists('agent-task/archive/g/log/complete.log')).toBe(true);
  });
});
