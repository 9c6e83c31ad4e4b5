import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import { APPROVE, Workspace } from './helpers.js';

// The CLI's commands run in this process (test/engine/cli-in-process.ts); the agents are processes.
describe('a catalog people write: compact, with permissions (fake agent)', {
  timeout: 120_000,
}, () => {
  it('runs like its full form; the agent gets its plugin’s flags; problems name compact paths', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [APPROVE],
          steps: [{ write: { path: 'src/t.txt', content: 't\n' } }, { fillChecklist: true }],
        },
      },
    });
    // The helper's full catalog, rewritten as a person would: one default for every route.
    const full = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    const target = { ...full.targets.a, permissions: 'edit+shell' }; // agent: claude-code
    const compact = { schema_version: 1, targets: { a: target }, defaults: { candidates: ['a'] } };
    writeFileSync(ws.catalogFile, JSON.stringify(compact, null, 2));
    ws.task('g/t', { files: ['src/t.txt'] });

    const run = await runInProcess(ws);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(ws.exists('agent-task/archive/g/t/complete.log')).toBe(true);
    // Claude Code's plugin put its flags on the argv the fake agent was started with.
    const attempts = ws.path('agent-task', '.switchyard', 'attempts');
    const argvs = readdirSync(attempts).map(
      (id) =>
        JSON.parse(readFileSync(join(attempts, id, 'locator.json'), 'utf8')).runtime
          .argv as string[],
    );
    expect(argvs.length).toBeGreaterThanOrEqual(2); // the worker and the review
    for (const argv of argvs)
      expect(argv.slice(-4)).toEqual([
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'Bash',
      ]);

    // One revision for both forms: the run's decisions pin the catalog validate reports.
    const shown = await cli([
      'catalog',
      'show',
      '--expanded',
      '--json',
      '--execution-catalog',
      ws.catalogFile,
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    const { revision, form, catalog } = JSON.parse(shown.stdout);
    expect(form).toBe('compact');
    const state = JSON.parse(ws.read('agent-task/.switchyard/tasks/g/t.json'));
    expect(state.decisions.worker.catalogRevision).toBe(revision);
    writeFileSync(ws.path('full.json'), JSON.stringify(catalog));
    const fullValidate = await cli([
      'catalog',
      'validate',
      '--json',
      '--execution-catalog',
      ws.path('full.json'),
    ]);
    expect(JSON.parse(fullValidate.stdout).revision).toBe(revision);

    // A mistake in a default is reported once, where it is written.
    writeFileSync(
      ws.catalogFile,
      JSON.stringify({ ...compact, defaults: { candidates: ['a', 'b'] } }, null, 2),
    );
    const bad = await cli(['catalog', 'validate', '--execution-catalog', ws.catalogFile]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('defaults.candidates.1: candidate "b" is not a target');
    expect(bad.stderr.match(/candidate "b" is not a target/g)).toHaveLength(1);
  });
});
