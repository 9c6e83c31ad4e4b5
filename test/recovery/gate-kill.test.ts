import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TrialWorkspace, until } from './kit.js';

/**
 * The dispatcher is SIGKILLed while one task's definition-of-done gate runs and another
 * task's agent works. Both end while no dispatcher watches. The next run must settle both as
 * recovery: the gate's START row gets its FINISH (`interrupted`) instead of making the run
 * exit 1 after archiving everything, and the agent judged from its files gets its final
 * locator and its `attempt.finished` event. A second dispatcher started meanwhile with
 * --json says on stdout why it exits 1.
 */
describe('recovery after a SIGKILL during a gate and an unwatched agent end', () => {
  it('seals the gate row, finalizes the agent, exits 0; --json carries every control-plane failure', {
    timeout: 180_000,
  }, async () => {
    const ws = new TrialWorkspace('sy-gate-kill-');
    const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
    ws.catalog({
      primary: {
        cases: [
          approve,
          {
            when: { role: 'worker', task: 'g/agent' },
            steps: [
              { write: { path: 'agent-started', content: 'x' } },
              { waitFor: '.release-agent' },
              { fillChecklist: true },
              { result: 'done' },
            ],
          },
        ],
        steps: [{ fillChecklist: true }, { result: 'done' }],
      },
    });
    ws.task('g/agent', { files: ['src/agent.ts'] });
    ws.task('g/gate', { files: ['src/gate.ts'] });
    // The test's markers are no part of the project: the write-set check leaves them out.
    appendFileSync(ws.path('.gitignore'), 'agent-started\ngate-started\n');
    // The gate: says it started, holds until released, then passes.
    const gate = ws.path('gate.mjs');
    writeFileSync(
      gate,
      [
        "import { existsSync, writeFileSync } from 'node:fs';",
        `writeFileSync(${JSON.stringify(ws.path('gate-started'))}, 'x');`,
        `const go = ${JSON.stringify(ws.path('.release-gate'))};`,
        'const timer = setInterval(() => {',
        "  if (existsSync(go)) { clearInterval(timer); writeFileSync(go + '.seen', 'x'); }",
        '}, 20);',
      ].join('\n'),
    );
    appendFileSync(
      ws.path('agent-task', 'g', 'gate', 'PLAN.md'),
      `\n## Definition of Done\n\nCommand: \`${process.execPath} ${gate}\`\nAssertion: exit code 0\n`,
    );
    const release = () => {
      writeFileSync(ws.path('.release-agent'), '');
      writeFileSync(ws.path('.release-gate'), '');
    };
    onTestFinished(release);

    const first = ws.start(['--max-parallel', '2']);
    onTestFinished(() => first.kill('SIGKILL'));
    await until(
      () => ws.exists('gate-started') && ws.exists('agent-started'),
      'the gate and the agent running',
    );
    // A second dispatcher on the same workspace: refused (lock held), and --json says why.
    const refused = ws.start(['--json']);
    const refusal = await refused.exited;
    expect(refusal.code).toBe(1);
    const lastLine = JSON.parse(refused.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(lastLine).toMatchObject({ type: 'error', exitCode: 1, code: 'SY_LOCK_HELD' });
    expect(lastLine.message).toMatch(/\S/);

    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    release();
    await until(() => ws.exists('.release-gate.seen'), 'the gate ended');
    await until(
      () => ws.stages().some((s) => s.ev === 'end' && s.task === 'g/agent'),
      'the agent ended unwatched',
    );

    const second = ws.start(['--json']);
    onTestFinished(() => second.kill('SIGKILL'));
    const exit = await second.exited;
    const events = second.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
    const finished = events.find((e) => e.type === 'run.finished');
    expect(finished?.controlFailures, second.stderr).toEqual([]);
    expect(exit.code, JSON.stringify(finished)).toBe(0);
    for (const id of ['g/agent', 'g/gate'])
      expect(ws.exists('agent-task/archive', id, 'complete.log'), id).toBe(true);

    // The agent judged after the restart: its event, its final locator, no second run.
    const recovered = events.filter((e) => e.type === 'attempt.finished' && e.recovered === true);
    expect(recovered.map((e) => `${e.task}:${e.role}:${e.result}`)).toEqual([
      'g/agent:worker:success',
    ]);
    expect(recovered[0]?.durationMs as number).toBeGreaterThanOrEqual(0);
    const attempts = ws.path('agent-task', '.switchyard', 'attempts');
    for (const dir of readdirSync(attempts)) {
      const locator = JSON.parse(readFileSync(join(attempts, dir, 'locator.json'), 'utf8'));
      expect(locator.result, dir).not.toBe('running');
    }
    expect(
      ws.stages().filter((s) => s.ev === 'start' && s.task === 'g/agent' && s.role === 'worker'),
    ).toHaveLength(1);
    // Every attempt of both runs has exactly one attempt.finished event.
    const all = ws.events();
    const started = all.filter((e) => e.type === 'attempt.started' && !e.reattached);
    const ended = all.filter((e) => e.type === 'attempt.finished');
    expect(ended.map((e) => e.attempt).sort()).toEqual(started.map((e) => e.attempt).sort());

    // The work log (archived with the group): the killed gate's START has its FINISH.
    const log = readFileSync(ws.path('agent-task', 'archive', 'g', 'work_log_1.log'), 'utf8');
    // (g/agent's change verification has gate rows too; g/gate's definition of done is judged.)
    const gateRows = log.split('\n').filter((l) => l.includes('g/gate/') && / gate \| /.test(l));
    expect(gateRows.map((l) => l.split('|')[2]?.trim())).toEqual([
      'START',
      'FINISH',
      'START',
      'FINISH',
    ]);
    expect(gateRows[1]).toContain('| interrupted |');
    expect(gateRows[3]).toContain('| success |');
  });
});
