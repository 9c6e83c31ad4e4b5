import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEngine } from '../engine/harness.js';
import { agentWorkspace, runCli, Workspace } from './helpers.js';

const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
};

/** A project gate: fails while any file under src/ says BROKEN, naming the file. */
const NO_BROKEN = `const fs = require('node:fs');
const bad = fs.existsSync('src') ? fs.readdirSync('src').filter((f) => fs.readFileSync('src/' + f, 'utf8').includes('BROKEN')) : [];
console.log(bad.length ? 'BROKEN in ' + bad.join(', ') : 'clean');
process.exit(bad.length ? 1 : 0);`;

describe('project gates (config `gates`), in process', { timeout: 60_000 }, () => {
  it('blocks a task whose project gate keeps failing, with the gate named in the reason', async () => {
    const ws = agentWorkspace({
      config: {
        gates: [{ name: 'always-red', command: [process.execPath, '-e', 'process.exit(3)'] }],
      },
      review: approve,
    });
    ws.task('g/red', { files: ['src/red.txt'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    const blocked = result.events.find((e) => e.type === 'task.blocked');
    expect(blocked).toMatchObject({ task: 'g/red', stage: 'project-gates' });
    expect(String(blocked!.reason)).toContain('always-red: expected exit code 0, got exit code 3');
  });

  it('refuses a config gate with a bad assertion, naming the path and value', async () => {
    const ws = new Workspace();
    ws.config({ gates: [{ name: 'x', command: ['true'], assertion: 'exits fine' }] });
    ws.catalog({ a: { scenario: { steps: [] } } });
    ws.task('g/a', { files: ['a.txt'] });
    const result = await runEngine(ws);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('gates');
    expect(result.stdout).toContain('exits fine');
  });
});

describe('project gates (config `gates`), real processes', { timeout: 120_000 }, () => {
  it('fails the gate for one task (correction naming the gate), passes it for another; status and complete.log show each result', async () => {
    const ws = agentWorkspace({
      config: {
        gates: [
          { name: 'no-broken', command: [process.execPath, 'no-broken.cjs'] },
          {
            name: 'source-lint',
            command: [process.execPath, '-e', 'console.log("lint ok")'],
            assertion: 'stdout contains "lint ok"',
            on: 'source',
          },
        ],
      },
      review: approve,
      cases: [
        {
          when: { role: 'worker', task: 'g/first', attempt: 1 },
          steps: [{ write: { path: 'src/first.txt', content: 'BROKEN' } }, { fillChecklist: true }],
        },
        {
          when: { role: 'worker', task: 'g/first' },
          steps: [{ write: { path: 'src/first.txt', content: 'fixed' } }, { fillChecklist: true }],
        },
      ],
      steps: [{ write: { path: 'src/second.txt', content: 'fine' } }, { fillChecklist: true }],
    });
    writeFileSync(ws.path('no-broken.cjs'), NO_BROKEN);
    ws.task('g/first', { files: ['src/first.txt'] });
    ws.task('g/second', { files: ['src/second.txt'], dependsOn: ['first'] });
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);

    const gates = ws.events().filter((e) => e.type === 'gate.finished');
    const summary = gates.map((g) => `${g.task} ${g.gate} ${g.on} ${g.passed}`);
    expect(summary).toEqual([
      'g/first no-broken task false',
      'g/first source-lint source true',
      'g/first no-broken task true',
      'g/first source-lint source true',
      'g/second no-broken task true',
      'g/second source-lint source true',
    ]);
    expect(gates[0]).toMatchObject({ detail: 'expected exit code 0, got exit code 1' });
    expect(result.stdout).toContain('project gate no-broken failed');

    // The failed gate went back to the worker as a correction naming it, with its output.
    const workers = ws
      .events()
      .filter((e) => e.type === 'attempt.started' && e.role === 'worker' && e.task === 'g/first');
    expect(workers).toHaveLength(2);
    const secondPrompt = promptOf(String(workers[1]!.attemptDir));
    expect(secondPrompt).toContain('project gate no-broken failed');
    expect(secondPrompt).toContain('BROKEN in first.txt');
    // The second task's worker ran once: its gate passed the first time.
    const secondWorkers = ws
      .events()
      .filter((e) => e.type === 'attempt.started' && e.role === 'worker' && e.task === 'g/second');
    expect(secondWorkers).toHaveLength(1);

    const firstLog = ws.read('agent-task/archive/g/first/complete.log');
    expect(firstLog).toMatch(/project gates:\n {2}no-broken \(task, loop 1\): passed/);
    expect(firstLog).toContain('source-lint (source, loop 1): passed — stdout contains "lint ok"');
    expect(ws.read('agent-task/archive/g/second/complete.log')).toContain(
      'no-broken (task, loop 1): passed',
    );
    // The work log has the stage's rows.
    expect(ws.read('agent-task/archive/g/work_log_1.log')).toMatch(
      /\| project-gates \| 1 \| no-broken, source-lint \| gate-failed \|/,
    );

    const status = await runCli(['status', '--workspace', ws.dir, '--json']);
    const report = JSON.parse(status.stdout);
    expect(
      report.gates.map((g: Record<string, unknown>) => `${g.task} ${g.name} ${g.passed}`),
    ).toEqual([
      'g/first no-broken true',
      'g/first source-lint true',
      'g/second no-broken true',
      'g/second source-lint true',
    ]);
    const text = await runCli(['status', '--workspace', ws.dir]);
    expect(text.stdout).toMatch(/project gates\n\s+g\/first\s+passed no-broken \(task, loop 1\)/);
  });
});

/** The prompt an attempt was started with (its locator records the argv). */
function promptOf(attemptDir: string): string {
  return readdirSync(attemptDir)
    .map((f) => readFileSync(join(attemptDir, f), 'utf8'))
    .join('\n');
}
