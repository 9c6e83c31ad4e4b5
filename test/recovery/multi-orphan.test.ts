import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { agentProcesses, TrialWorkspace, until } from './kit.js';

/** One launch recorded by the fake agent in its scenario state file. */
interface Launch {
  role: string;
  task: string;
  target: string;
}

function launches(ws: TrialWorkspace, target: string): Launch[] {
  const file = ws.path(`.scenario-${target}.json.state.jsonl`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Launch);
}

const release = (ws: TrialWorkspace, task: string) =>
  writeFileSync(ws.path(`.release-${task.replace('/', '-')}`), '');
const held = (task: string) => [
  { say: 'working' },
  { waitFor: `.release-${task.replace('/', '-')}` },
  { fillChecklist: true },
  { result: 'done' },
];

/**
 * The dispatcher is SIGKILLed (the real node binary) while several agents run. On restart
 * every live orphan is re-attached at once and independent work starts meanwhile; an orphan
 * that ended while no dispatcher watched is judged by its evidence: a successful final event
 * is success (never run again), a quota fault fails over.
 */
describe('restart after a SIGKILL with several live agents', () => {
  it('re-attaches every orphan at once, schedules independent work, repeats no successful run', {
    timeout: 180_000,
  }, async () => {
    const ws = new TrialWorkspace('sy-orphans-');
    const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
    ws.catalog({
      primary: {
        cases: [
          approve,
          ...['g/a', 'g/b', 'g/c', 'g/done'].map((task) => ({
            when: { role: 'worker', task },
            steps: held(task),
          })),
          {
            when: { role: 'worker', task: 'g/quota' },
            steps: [{ say: 'working' }, { waitFor: '.release-g-quota' }, { fault: 'quota' }],
          },
        ],
        steps: [{ fillChecklist: true }, { result: 'done' }],
      },
      backup: { cases: [approve], steps: [{ fillChecklist: true }, { result: 'done' }] },
    });
    const orphans = ['g/a', 'g/b', 'g/c', 'g/done', 'g/quota'];
    for (const [i, id] of orphans.entries()) ws.task(id, { files: [`src/${i}.ts`] });
    ws.task('g/unrelated', { files: ['src/unrelated.ts'] });

    // Run 1: five workers take the five slots; g/unrelated waits for one.
    const first = ws.start(['--max-parallel', '5']);
    await until(
      () =>
        new Set(
          ws
            .events()
            .filter((e) => e.type === 'attempt.started')
            .map((e) => e.task),
        ).size === 5,
      60_000,
      'five workers started (locators written)',
    );
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(agentProcesses(ws.dir).length).toBeGreaterThanOrEqual(5);

    // While no dispatcher runs, two agents end: one successfully, one with a quota fault.
    release(ws, 'g/done');
    release(ws, 'g/quota');
    await until(
      () =>
        ws.stages().filter((s) => s.ev === 'end' && (s.task === 'g/done' || s.task === 'g/quota'))
          .length === 2,
      'two orphans ended unwatched',
    );

    // Run 2 (one more slot): the three live orphans are re-attached at once and
    // g/unrelated runs to its archive while they are still held.
    const before = ws.events().length;
    const second = ws.start(['--max-parallel', '6']);
    const recent = () => ws.events().slice(before);
    onTestFinished(() => {
      // On a failure: nothing of this test keeps running.
      for (const task of orphans) release(ws, task);
      second.kill('SIGKILL');
    });
    await until(
      () =>
        recent().filter((e) => e.type === 'attempt.started' && e.reattached === true).length === 3,
      'all three live orphans re-attached',
    );
    await until(
      () => ws.exists('agent-task/archive/g/unrelated/complete.log'),
      'independent work archived while the orphans run',
    );
    expect(
      ws.stages().filter((s) => s.ev === 'end' && ['g/a', 'g/b', 'g/c'].includes(s.task)),
      'the orphans were still held when g/unrelated finished',
    ).toEqual([]);
    for (const task of ['g/a', 'g/b', 'g/c']) release(ws, task);
    const exit = await second.exited;
    expect(exit.code, second.stdout + second.stderr).toBe(0);

    for (const id of [...orphans, 'g/unrelated'])
      expect(ws.exists('agent-task/archive', id, 'complete.log'), id).toBe(true);
    // No successful worker ran twice: one primary launch per task; g/quota failed over.
    const primary = launches(ws, 'primary').filter((l) => l.role === 'worker');
    for (const id of [...orphans, 'g/unrelated'])
      expect(
        primary.filter((l) => l.task === id),
        id,
      ).toHaveLength(1);
    const backup = launches(ws, 'backup').filter((l) => l.role === 'worker');
    expect(backup.map((l) => l.task)).toEqual(['g/quota']);
    expect(recent().some((e) => e.type === 'target.failover' && e.task === 'g/quota')).toBe(true);
    expect(agentProcesses(ws.dir)).toEqual([]);
  });
});
