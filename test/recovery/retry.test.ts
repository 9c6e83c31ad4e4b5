import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type EngineRun, runEngine, storedEvents, taskStates } from '../engine/harness.js';
import { TrialWorkspace } from './kit.js';

interface Launch {
  role: string;
  task: string;
}

/**
 * Two tasks block on their worker's failure budget; then the catalog is edited. `switchyard
 * retry <task>` retries only the named task, for its own reason (it is not re-blocked as
 * "catalog changed"), keeping its history: complete.log lists both revisions it used.
 * `--retry-blocked` then retries the other one the same way.
 */
describe('retrying blocked tasks after a catalog edit (in process)', { timeout: 60_000 }, () => {
  it('retries the named task only, then the rest, each for its own reason', async () => {
    const ws = new TrialWorkspace('sy-retry-');
    const scenario = (workerSteps: unknown[]) => ({
      cases: [{ when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] }],
      steps: workerSteps,
    });
    ws.catalog({ t: scenario([{ say: 'failing' }, { exit: 3 }]) });
    ws.task('g/x', { files: ['src/x.ts'] });
    ws.task('g/z', { files: ['src/z.ts'] });
    const launches = (task: string) =>
      readFileSync(ws.path('.scenario-t.json.state.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Launch)
        .filter((l) => l.task === task && l.role === 'worker').length;
    const ended = async (run: Promise<EngineRun>) => {
      const done = await run;
      states = await taskStates(done.store);
      return { code: done.code, out: done.stdout, store: done.store };
    };
    let states: Awaited<ReturnType<typeof taskStates>> = new Map();
    const stateOf = (id: string) => states.get(id)!;

    const first = await ended(runEngine(ws));
    expect(first.code, first.out).toBe(3);
    const { store } = first;
    const reason = stateOf('g/z').blocked!.reason;
    expect(reason).not.toMatch(/catalog changed/);
    const oldRevision = stateOf('g/x').decisions.worker!.catalogRevision;
    const zLaunches = launches('g/z');

    // The agent is fixed and the catalog edited (a new model for the target).
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.t.model = 'model-t-v2';
    writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 1));
    writeFileSync(
      ws.path('.scenario-t.json'),
      JSON.stringify({
        format: 'claude-code',
        ...scenario([{ fillChecklist: true }, { result: 'done' }]),
      }),
    );

    const second = await ended(runEngine(ws, { retryTasks: ['g/x'], store }));
    expect(second.code, second.out).toBe(3); // g/z stays blocked
    expect(ws.exists('agent-task/archive/g/x/complete.log')).toBe(true);
    expect(launches('g/z'), 'g/z was not retried').toBe(zLaunches);
    expect(stateOf('g/z').blocked!.reason).toBe(reason);
    const complete = readFileSync(ws.path('agent-task/archive/g/x/complete.log'), 'utf8');
    const newRevision = stateOf('g/x').decisions.worker!.catalogRevision;
    expect(newRevision).not.toBe(oldRevision);
    expect(complete).toContain(oldRevision);
    expect(complete).toContain(newRevision);
    // The failed attempts of before the retry are still in the task's history.
    const x = stateOf('g/x');
    expect(x.attempts.filter((a) => a.result !== 'success').length).toBe(zLaunches);

    const third = await ended(runEngine(ws, { retryBlocked: true, store }));
    expect(third.code, third.out).toBe(0);
    expect(
      (await storedEvents(store)).filter(
        (e) => e.type === 'task.blocked' && /catalog changed/.test(`${e.reason}`),
      ),
    ).toEqual([]);
    expect(ws.exists('agent-task/archive/g/z/complete.log')).toBe(true);
  });

  it('refuses an unknown task id (exit 2)', async () => {
    const ws = new TrialWorkspace('sy-retry-usage-');
    ws.catalog({ t: { steps: [{ result: 'done' }] } });
    ws.task('g/x', { files: ['src/x.ts'] });
    const run = await runEngine(ws, { retryTasks: ['g/nope'] });
    expect(run.code, run.stdout).toBe(2);
    expect(run.stdout).toContain('g/nope');
  });
});
