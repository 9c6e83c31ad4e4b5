import { readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { cli } from '../engine/cli-in-process.js';
import { runEngineOnFiles } from '../engine/harness.js';

const usage = (costUsd: number) => ({
  result: 'done',
  usage: { inputTokens: 1000, outputTokens: 200, costUsd },
});
const plan2 =
  '## Modified Files Summary\n\n- out.txt\n\n## Implementation Checklist\n\n- [ ] fix it\n';

/**
 * Keys of a document that are not camelCase, with their path: switchyard's own JSON is
 * camelCase but for `schema_version` (see "JSON key style" in the CLI README). A copy of a
 * catalog target (`targetSnapshot`) keeps the catalog's spelling and is not looked into.
 */
function nonCamelKeys(doc: unknown, path = '$'): string[] {
  if (Array.isArray(doc)) return doc.flatMap((v, i) => nonCamelKeys(v, `${path}[${i}]`));
  if (doc === null || typeof doc !== 'object') return [];
  return Object.entries(doc).flatMap(([key, value]) => {
    const here = `${path}.${key}`;
    if (key === 'targetSnapshot') return [];
    // Keys that are data (task ids `g/t`, classes `provider-quota`) are no keys of the format.
    if (/[/.:-]/.test(key)) return nonCamelKeys(value, here);
    const camel = /^[a-z][a-zA-Z0-9]*$/.test(key) || key === 'schema_version';
    return [...(camel ? [] : [here]), ...nonCamelKeys(value, here)];
  });
}

// The run in this process on the file store (test/engine): the events, states and retro file a
// spawned run writes; `retro` and `status` through the CLI's own entry. That `switchyard run`
// itself writes the retro file is checked by a spawned test (dispatcher/escalation.test.ts).
describe('switchyard retro (in-process engine, file store, CLI commands)', {
  timeout: 120_000,
}, () => {
  it('writes a retrospective whose figures match the run events', async () => {
    const ws = new Workspace();
    const check = `const ok = require('node:fs').readFileSync('out.txt', 'utf8') === 'good'; console.log(ok ? 'PASS' : 'FAIL: out.txt'); process.exit(ok ? 0 : 1);`;
    writeFileSync(ws.path('check.cjs'), check);
    ws.catalog(
      {
        flaky: { scenario: { steps: [{ say: 'starting' }, { fault: 'quota' }] } },
        steady: {
          scenario: {
            cases: [
              {
                when: { role: 'review', task: 'g/looped', attempt: 1 },
                steps: [
                  {
                    review: 'Verdict: CHANGES_REQUESTED\n\n- [CRITICAL] wrong\n- [MINOR] name\n',
                    nextPlan: plan2,
                  },
                  usage(0.01),
                ],
              },
              {
                when: { role: 'review' },
                steps: [{ review: 'Verdict: APPROVED\n' }, usage(0.01)],
              },
              {
                when: { role: 'worker', task: 'g/looped', attempt: 1 },
                steps: [
                  { write: { path: 'out.txt', content: 'bad' } },
                  { fillChecklist: true },
                  usage(0.02),
                ],
              },
            ],
            steps: [
              { write: { path: 'out.txt', content: 'good' } },
              { fillChecklist: true },
              usage(0.02),
            ],
          },
        },
      },
      ['flaky', 'steady'],
      ['steady'],
    );
    ws.task('g/looped', {
      files: ['out.txt'],
      done: { command: `${process.execPath} check.cjs`, assertion: 'exit code 0' },
    });
    ws.task('g/plain', { files: ['other.txt'], dependsOn: ['looped'] });
    const run = await runEngineOnFiles(ws);
    expect(run.code, run.stdout).toBe(0);

    const files = readdirSync(ws.path('agent-task/retros'));
    expect(files).toHaveLength(1);
    const events = ws.events();
    const runId = String(events.find((e) => e.type === 'run.started')!.runId);
    expect(files[0]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}-${runId}\\.md$`));

    const result = await cli(['retro', '--workspace', ws.dir, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const retro = JSON.parse(result.stdout);
    expect(retro.runs).toEqual([runId]);
    // Every figure recomputed from the events.
    const of = (task: string, type: string) =>
      events.filter((e) => e.type === type && e.task === task);
    for (const id of ['g/looped', 'g/plain']) {
      const row = retro.tasks.find((t: { task: string }) => t.task === id);
      const finished = of(id, 'attempt.finished');
      const cost = finished.reduce(
        (n, e) => n + ((e.usage as { costUsd?: number } | undefined)?.costUsd ?? 0),
        0,
      );
      expect(row).toMatchObject({
        outcome: 'archived',
        attempts: of(id, 'attempt.started').length,
        failovers: of(id, 'target.failover').length,
        gateFailures: of(id, 'gate.finished').filter((e) => !e.passed).length,
      });
      expect(row.costUsd).toBeCloseTo(cost, 10);
    }
    const looped = retro.tasks.find((t: { task: string }) => t.task === 'g/looped');
    expect(looped).toMatchObject({
      planLoops: 2,
      findings: { critical: 1, moderate: 0, minor: 1 },
      failureClasses: { 'provider-quota': 1 },
      failovers: 1,
      gateFailures: 1,
    });
    const flaky = retro.targets.find((g: { target: string }) => g.target === 'flaky');
    expect(flaky).toMatchObject({ succeeded: 0, failureClasses: { 'provider-quota': 2 } });
    const steady = retro.targets.find((g: { target: string }) => g.target === 'steady');
    expect(steady.successRate).toBe(1);
    expect(steady.archivedTasks).toBe(2);
    expect(steady.costPerArchivedTaskUsd).toBeCloseTo(steady.costUsd / 2, 10);
    // Suggestions cite their figures.
    expect(retro.suggestions).toContainEqual({
      text: expect.stringMatching(/^target flaky failed 2 of 2 attempts \(provider-quota ×2\)/),
      figures: 'flaky: 2/2 failed',
    });
    const text = await cli(['retro', '--workspace', ws.dir]);
    expect(text.stdout).toContain('| g/looped | archived |');
    // People read costs to a tenth of a cent; JSON keeps the exact sum (0.11, no float noise).
    const status = await cli(['status', '--workspace', ws.dir, '--json']);
    const report = JSON.parse(status.stdout);
    expect(report.usage.run.costUsd).toBe(0.11);
    expect(text.stdout).toContain('tokens, $0.110.');
    expect(text.stdout).not.toMatch(/\$\d+\.\d{4}/);
    // One key style: the retro, the status report, the events and the task states.
    const states = ['g/looped', 'g/plain'].map((id) =>
      JSON.parse(ws.read(`agent-task/.switchyard/tasks/${id}.json`)),
    );
    expect(nonCamelKeys([retro, report, events, states])).toEqual([]);
    expect(text.stdout).toContain('[flaky: 2/2 failed]');
    const bad = await cli(['retro', '--workspace', ws.dir, '--run', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no run nope');
  });
});
