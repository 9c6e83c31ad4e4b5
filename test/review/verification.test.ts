import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentWorkspace, type Workspace } from '../dispatcher/helpers.js';

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

describe('verification, not trust (fake agents as real processes)', { timeout: 120_000 }, () => {
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
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    const gates = ws.events().filter((e) => e.type === 'gate.finished');
    expect(gates.map((g) => g.passed)).toEqual([false, true]);
    expect(gates[0]).toMatchObject({ detail: 'the change does not verify: 2 finding(s)' });
    // The worker's second prompt carries both findings as its correction.
    const workers = ws.events().filter((e) => e.type === 'attempt.started' && e.role === 'worker');
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
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    const gates = ws.events().filter((e) => e.type === 'gate.finished');
    expect(gates.map((g) => g.passed)).toEqual([false, true]);
    const state = ws.events().find((e) => e.type === 'gate.finished');
    expect(state).toMatchObject({ detail: 'the change does not verify: 1 finding(s)' });
    const worker2 = ws
      .events()
      .filter((e) => e.type === 'attempt.started' && e.role === 'worker')[1]!;
    const prompt = ws.read(`${String(worker2.attemptDir).slice(ws.dir.length + 1)}/prompt.md`);
    expect(prompt).toContain(
      '[CRITICAL] stub left in the change: src/a.js:2: throw new Error("TODO");',
    );
  });
});
