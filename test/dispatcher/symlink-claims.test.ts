import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runEngine } from '../engine/harness.js';
import { runCli, Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('one task view: a claim covers the path as written and its real target (in process)', {
  timeout: 60_000,
}, () => {
  it('a symlinked write-set entry: the dry run and the live run serialize the same tasks', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: { scenario: { cases: [approve], steps: [{ sleep: 150 }, { fillChecklist: true }] } },
    });
    mkdirSync(ws.path('real'));
    writeFileSync(ws.path('real/x.ts'), '');
    symlinkSync('real', ws.path('link'));
    ws.task('g/via-link', { files: ['link/x.ts'] });
    ws.task('g/via-real', { files: ['real/x.ts'] });
    ws.task('g/other', { files: ['src/other.ts'] });

    const dry = await runCli([
      'run',
      '--dry-run',
      '--json',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalogFile,
      '--max-parallel',
      '3',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout).admission.admitted;
    expect(planned).toEqual(['g/other', 'g/via-link']);

    const result = await runEngine(ws, { maxParallel: 3 });
    expect(result.code, result.stdout).toBe(0);
    const { events } = result;
    // The live scheduler's first pass: the task.admitted events before the first progress.
    const firstPass = events
      .slice(
        0,
        events.findIndex((e) => e.type === 'run.progress'),
      )
      .filter((e) => e.type === 'task.admitted')
      .map((e) => e.task);
    expect(firstPass).toEqual(planned);
    // g/via-real waited for the claim on real/x.ts until g/via-link was archived.
    const at = (type: string, task: string) =>
      events.findIndex((e) => e.type === type && e.task === task);
    expect(at('task.waiting', 'g/via-real')).toBeGreaterThan(-1);
    expect(at('attempt.started', 'g/via-real')).toBeGreaterThan(at('task.archived', 'g/via-link'));
    expect(ws.exists('agent-task/archive/g/via-real/complete.log')).toBe(true);
  });
});
