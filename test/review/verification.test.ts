import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentWorkspace, type Workspace } from '../dispatcher/helpers.js';
import { runEngine } from '../engine/harness.js';

// A node --test style runner: reports as many tests as test files the change wrote.
const runner = [
  "const fs = require('node:fs');",
  "const n = fs.existsSync('src/a.test.js') ? 1 : 0;",
  'console.log(`ℹ tests ${n}`);',
  'console.log(`ℹ pass ${n}`);',
  "console.log('ℹ fail 0');",
].join('\n');

function requiredTestsTask(ws: Workspace, id: string): void {
  const file = ws.task(id, {
    files: ['src/a.js', 'src/a.test.js'],
    done: { command: `${process.execPath} runner.cjs`, assertion: 'exit code 0' },
  });
  writeFileSync(ws.path('runner.cjs'), runner);
  // `tests: required` in the front matter.
  writeFileSync(file, readFileSync(file, 'utf8').replace('---\n#', 'tests: required\n---\n#'));
}

describe('verification, not trust (in process)', { timeout: 60_000 }, () => {
  it('tests: required sends back a change without tests and a run of zero tests, then archives', async () => {
    const ws = agentWorkspace({
      cases: [
        {
          when: { role: 'worker', attempt: 1 },
          steps: [
            { write: { path: 'src/a.js', content: 'module.exports = (a, b) => a + b;\n' } },
            { fillChecklist: true },
          ],
        },
      ],
      steps: [
        {
          write: {
            path: 'src/a.test.js',
            content: "require('node:test')('sums', () => {});\n",
          },
        },
        { fillChecklist: true },
      ],
    });
    requiredTestsTask(ws, 'g/tested');
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const gates = result.events.filter((e) => e.type === 'gate.finished');
    expect(gates.map((g) => g.passed)).toEqual([false, true]);
    expect(gates[0]).toMatchObject({ detail: 'the change does not verify: 2 finding(s)' });
    // The worker's second prompt carries both findings as its correction.
    const workers = result.events.filter(
      (e) => e.type === 'attempt.started' && e.role === 'worker',
    );
    expect(workers).toHaveLength(2);
    const prompt = ws.read(`${String(workers[1]!.attemptDir).slice(ws.dir.length + 1)}/prompt.md`);
    expect(prompt).toContain(
      '[CRITICAL] tests: required, but the change adds or changes no test file (changed: src/a.js)',
    );
    expect(prompt).toContain(
      '[CRITICAL] tests: required, but the node-test run reports zero tests: ℹ tests 0',
    );
    expect(ws.exists('agent-task/archive/g/tested/complete.log')).toBe(true);
  });

  it('turns a stub left in the change into a finding', async () => {
    const ws = agentWorkspace({
      cases: [
        {
          when: { role: 'worker', attempt: 1 },
          steps: [
            {
              write: {
                path: 'src/a.js',
                content: 'module.exports = () => {\n  throw new Error("TODO");\n};\n',
              },
            },
            { fillChecklist: true },
          ],
        },
      ],
      steps: [
        { write: { path: 'src/a.js', content: 'module.exports = (a, b) => a + b;\n' } },
        { fillChecklist: true },
      ],
    });
    ws.task('g/stub', {
      files: ['src/a.js'],
      done: { command: `${process.execPath} -e 0`, assertion: 'exit code 0' },
    });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const gates = result.events.filter((e) => e.type === 'gate.finished');
    expect(gates.map((g) => g.passed)).toEqual([false, true]);
    const state = result.events.find((e) => e.type === 'gate.finished');
    expect(state).toMatchObject({ detail: 'the change does not verify: 1 finding(s)' });
    const worker2 = result.events.filter(
      (e) => e.type === 'attempt.started' && e.role === 'worker',
    )[1]!;
    const prompt = ws.read(`${String(worker2.attemptDir).slice(ws.dir.length + 1)}/prompt.md`);
    expect(prompt).toContain(
      '[CRITICAL] stub left in the change: src/a.js:2: throw new Error("TODO");',
    );
  });

  it("without a definition of done, in a shared workspace: a human's old TODO is not the task's; its own stub and its write outside the write set go back as corrections", async () => {
    const old = "// TODO: a human's note from 2019\nmodule.exports = 0;\n";
    const ws = agentWorkspace({
      cases: [
        {
          when: { role: 'worker', attempt: 1 },
          steps: [
            { write: { path: 'src/a.js', content: `${old}module.exports.x = 1;\n` } },
            { write: { path: 'notes.md', content: 'scratch\n' } },
            { fillChecklist: true },
          ],
        },
        {
          when: { role: 'worker', attempt: 2 },
          steps: [
            { write: { path: 'src/a.js', content: `${old}// TODO mine\n` } },
            { fillChecklist: true },
          ],
        },
      ],
      steps: [
        { write: { path: 'src/a.js', content: `${old}module.exports.x = 2;\n` } },
        { fillChecklist: true },
      ],
    });
    mkdirSync(ws.path('src'));
    writeFileSync(ws.path('src/a.js'), old);
    ws.task('g/noted', { files: ['src/a.js'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const workers = result.events.filter(
      (e) => e.type === 'attempt.started' && e.role === 'worker',
    );
    expect(workers).toHaveLength(3);
    const prompt = (n: number) =>
      ws.read(`${String(workers[n]!.attemptDir).slice(ws.dir.length + 1)}/prompt.md`);
    // Round 1 wrote outside its write set (a snapshot of the workspace saw it, no git here).
    expect(prompt(1)).toContain(
      "files outside the plan's write set: src/a.js were changed: notes.md. Undo those changes",
    );
    // Round 2 added a stub: only that line is judged, never the human's line 1.
    expect(prompt(2)).toContain('[CRITICAL] stub left in the change: src/a.js:3: // TODO mine');
    expect(prompt(2)).not.toContain('src/a.js:1');
    expect(ws.exists('agent-task/archive/g/noted/complete.log')).toBe(true);
  });

  it('tests: required without a definition of done: refused with no test gate, judged on the project test gate with one', async () => {
    const ws = agentWorkspace({
      cases: [
        {
          when: { role: 'worker', attempt: 1 },
          steps: [
            { write: { path: 'src/a.js', content: 'module.exports = 1;\n' } },
            { write: { path: 'src/a.test.js', content: '// the tests come later\n' } },
            { fillChecklist: true },
          ],
        },
      ],
      steps: [
        { write: { path: 'src/a.test.js', content: "require('node:test')('one', () => {});\n" } },
        { fillChecklist: true },
      ],
    });
    const file = ws.task('g/tests', { files: ['src/a.js', 'src/a.test.js'] });
    writeFileSync(file, readFileSync(file, 'utf8').replace('---\n#', 'tests: required\n---\n#'));
    const refused = await runEngine(ws);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(
      /agent-task\/g\/tests\/PLAN\.md:3.*`tests: required` needs a test run to judge, but the plan has no Definition of Done and the project config has no test gate/s,
    );
    expect(refused.events.some((e) => e.type === 'attempt.started')).toBe(false);
    // Counts the tests the test file declares.
    writeFileSync(
      ws.path('count.cjs'),
      [
        "const fs = require('node:fs');",
        "const text = fs.existsSync('src/a.test.js') ? fs.readFileSync('src/a.test.js', 'utf8') : '';",
        "const n = (text.match(/node:test'\\)\\(/g) || []).length;",
        'console.log(`ℹ tests ${n}`);',
      ].join('\n'),
    );
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      gates: [{ name: 'test', command: [process.execPath, 'count.cjs'] }],
    });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const gates = result.events.filter((e) => e.type === 'gate.finished' && e.gate === 'test');
    expect(gates.map((g) => g.passed)).toEqual([false, true]);
    const workers = result.events.filter(
      (e) => e.type === 'attempt.started' && e.role === 'worker',
    );
    const prompt = ws.read(`${String(workers[1]!.attemptDir).slice(ws.dir.length + 1)}/prompt.md`);
    expect(prompt).toContain(
      '[CRITICAL] tests: required, but the node-test run reports zero tests',
    );
  });
});
