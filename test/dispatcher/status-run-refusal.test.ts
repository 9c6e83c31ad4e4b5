import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import { Workspace } from './helpers.js';

interface Report {
  waiting: { task: string; kind: string; why: string }[];
  runRefusal?: {
    code: string;
    message: string;
    hint: string;
    problems: { code: string; file?: string; message: string; hint?: string }[];
  };
}

// The CLI's commands run in this process (test/engine/cli-in-process.ts).
describe('status shows when the next run refuses to start', { timeout: 120_000 }, () => {
  it('a plan outside a task folder: status lists the problem the run refuses with, and no ready task is promised a start', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [] } } });
    ws.task('g/ok', { files: ['src/ok.ts'] });
    writeFileSync(ws.path('agent-task', 'g', 'PLAN.md'), '# a plan in the group folder\n');

    const json = await cli(['status', '--workspace', ws.dir, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as Report;
    const refusal = report.runRefusal;
    expect(refusal?.code).toBe('SY_PLAN_INVALID');
    expect(refusal?.problems).toHaveLength(1);
    const problem = refusal!.problems[0]!;
    expect(problem.code).toBe('SY_PLAN_INVALID');
    expect(problem.file).toContain('agent-task/g/PLAN.md');
    expect(problem.hint).toBeTruthy();
    const ready = report.waiting.find((w) => w.task === 'g/ok');
    expect(ready?.kind).toBe('ready');
    expect(ready?.why).not.toContain('the next `switchyard run` starts');
    expect(ready?.why).toContain('refuses');

    const text = await cli(['status', '--workspace', ws.dir]);
    expect(text.stdout).toContain('next run refuses (1)');
    expect(text.stdout).toContain(problem.message);
    expect(text.stdout).not.toContain('the next `switchyard run` starts');

    // The run refuses with the very problem status showed, before anything starts.
    const run = await runInProcess(ws);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('SY_PLAN_INVALID');
    expect(run.stderr).toContain(problem.message);
    expect(ws.attempts()).toEqual([]);
  });

  it('a workspace the run accepts has no refusal, and its ready task is promised the next run', async () => {
    const ws = new Workspace();
    ws.task('g/ok', { files: ['src/ok.ts'] });
    const report = JSON.parse(
      (await cli(['status', '--workspace', ws.dir, '--json'])).stdout,
    ) as Report;
    expect(report.runRefusal).toBeUndefined();
    expect(report.waiting.find((w) => w.task === 'g/ok')?.why).toContain(
      'the next `switchyard run` starts',
    );
  });
});
