import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runEngine, storedEvents, taskStates } from '../engine/harness.js';
import { TrialWorkspace } from './kit.js';

/**
 * A catalog changed while a decision is persisted fails closed: the task blocks with the
 * old and new revisions in its evidence (exit 3) while a task that had not decided yet runs
 * on the new catalog; `--retry-blocked` re-decides and finishes.
 */
describe('catalog changed under a persisted decision (in process)', { timeout: 60_000 }, () => {
  it('blocks the decided task with both revisions (exit 3); --retry-blocked re-decides and finishes', async () => {
    const ws = new TrialWorkspace('sy-catalog-change-');
    const scenario = {
      cases: [
        { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
        { when: { role: 'worker', task: 'g/decided', attempt: 1 }, steps: [{ hang: true }] },
      ],
      steps: [{ fillChecklist: true }, { result: 'done' }],
    };
    ws.catalog({ t: scenario });
    ws.task('g/decided', { files: ['src/a.ts'] });
    ws.task('g/later', { files: ['src/b.ts'], dependsOn: ['decided'] });
    ws.task('g/fresh', { files: ['src/a.ts', 'src/c.ts'] }); // waits on g/decided's claim

    // Interrupted (SIGINT in the CLI) once g/decided's worker has started.
    const interrupt = new AbortController();
    const first = await runEngine(ws, {
      maxParallel: 1,
      signal: interrupt.signal,
      onEvent: (e) => {
        if (e.type === 'attempt.started' && e.task === 'g/decided') interrupt.abort();
      },
    });
    expect(first.code, first.stdout).toBe(130);
    const { store } = first;
    const before = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    const state = (await taskStates(store)).get('g/decided')!;
    const oldRevision = state.decisions.worker!.catalogRevision;

    // A team lead edits the catalog: the target's model changes.
    before.targets.t.model = 'model-t-v2';
    writeFileSync(ws.catalogFile, JSON.stringify(before, null, 1));
    const second = await runEngine(ws, { store });
    expect(second.code, second.stdout).toBe(3);
    const started = (await storedEvents(store)).filter((e) => e.type === 'run.started');
    const newRevision = (started.at(-1)!.catalog as { revision: string }).revision;
    expect(newRevision).not.toBe(oldRevision);
    const blocked = (await storedEvents(store)).find(
      (e) => e.type === 'task.blocked' && e.task === 'g/decided',
    );
    expect(blocked?.reason).toMatch(/^catalog changed/);
    expect(((blocked?.evidence ?? []) as string[]).join('\n')).toContain(oldRevision);
    expect(((blocked?.evidence ?? []) as string[]).join('\n')).toContain(newRevision);
    const after = (await taskStates(store)).get('g/decided')!;
    expect(after.blocked!.catalog).toEqual({ old: oldRevision, new: newRevision });
    expect(second.stdout).toContain('g/decided');
    expect(second.stdout).toContain('catalog changed');
    // Nothing ran on the stale decision: still exactly one worker attempt.
    expect(after.attempts).toHaveLength(1);
    // g/fresh shares a file with g/decided, whose claim is kept while it is blocked: it waits.
    expect(ws.exists('agent-task/archive/g/fresh/complete.log')).toBe(false);

    const third = await runEngine(ws, { retryBlocked: true, store });
    expect(third.code, third.stdout).toBe(0);
    const decided = (await storedEvents(store)).filter(
      (e) => e.type === 'stage.decided' && e.task === 'g/decided' && e.stage === 'worker',
    );
    expect(decided.at(-1)?.catalogRevision).toBe(newRevision);
    for (const id of ['g/decided', 'g/later', 'g/fresh'])
      expect(ws.exists('agent-task/archive', id, 'complete.log')).toBe(true);
  });
});
