import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEngine, taskStates } from '../engine/harness.js';
import { TrialWorkspace } from './kit.js';

/** A target's `runtime.auxiliary_logs` are copied (tail, size-capped) into the attempt's evidence. */
describe('runtime.auxiliary_logs (in process)', { timeout: 60_000 }, () => {
  it('collects each log of an attempt into its evidence, capped', async () => {
    const ws = new TrialWorkspace('sy-aux-logs-');
    const big = `${`${'x'.repeat(79)}\n`.repeat(20_000)}LAST LINE\n`; // ~1.6 MB
    ws.catalog({
      t: {
        cases: [
          { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
          {
            when: { role: 'worker', attempt: 1 },
            steps: [{ write: { path: '.agent-t.log', content: big } }, { exit: 3 }],
          },
        ],
        steps: [{ fillChecklist: true }, { result: 'done' }],
      },
    });
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.t.runtime.auxiliary_logs = [
      '{workspace}/.agent-{target_id}.log',
      '{workspace}/.never-written.log',
    ];
    writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 1));
    ws.task('g/x', { files: ['src/x.ts'] });
    const run = await runEngine(ws);
    expect(run.code, run.stdout).toBe(0);

    const state = (await taskStates(run.store)).get('g/x')!;
    const failed = state.attempts.find((a) => a.result !== 'success')!;
    const aux = join(failed.attemptDir, 'auxiliary');
    const files = readdirSync(aux).sort();
    expect(files).toEqual(['1-.agent-t.log', 'index.json']);
    const copy = join(aux, '1-.agent-t.log');
    expect(statSync(copy).size).toBeLessThanOrEqual(1024 * 1024);
    expect(readFileSync(copy, 'utf8')).toMatch(/LAST LINE\n$/);
    const index = JSON.parse(readFileSync(join(aux, 'index.json'), 'utf8'));
    expect(index).toMatchObject([
      { path: ws.path('.agent-t.log'), truncated: true },
      { path: ws.path('.never-written.log'), missing: true },
    ]);
  });
});
