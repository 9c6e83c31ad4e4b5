import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
/** A provider quota error that names its reset time, as Claude Code prints it. */
const quota = (after: string) => [
  {
    print: `API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached. Please try again in ${after}."}}`,
    stream: 'stderr',
  },
  { exit: 1 },
];

describe('parking a stage until its quota resets (fake agents as real processes)', {
  timeout: 120_000,
}, () => {
  it('parks instead of spending the budget, then runs on the candidate that resets first', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [approve, { when: { role: 'worker', attempt: 1 }, steps: quota('2s') }],
          steps: [{ fillChecklist: true }, { result: 'done' }],
        },
      },
      b: { scenario: { cases: [approve], steps: quota('1h') } },
    });
    ws.task('g/p', { files: ['src/p.ts'] });
    const result = await ws.run();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const events = ws.events();
    const parked = events.find((e) => e.type === 'task.parked');
    expect(parked).toMatchObject({ task: 'g/p', stage: 'worker', targets: ['a', 'b'] });
    const workers = events.filter((e) => e.type === 'attempt.started' && e.role === 'worker');
    expect(workers.map((e) => e.target)).toEqual(['a', 'b', 'a']);
    // The third attempt started no earlier than a's reset.
    expect(Date.parse(`${workers[2]!.at}`)).toBeGreaterThanOrEqual(Date.parse(`${parked!.until}`));
    expect(events.some((e) => e.type === 'attempt.retry-scheduled')).toBe(false);
    expect(result.stdout).toMatch(/parked +g\/p worker until/);
    expect(ws.exists('agent-task/archive/g/p/complete.log')).toBe(true);
  });

  it('shows a parked task as "parked until T" in status and keeps its budget', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: { scenario: { cases: [approve], steps: quota('2h') } },
      b: { scenario: { cases: [approve], steps: quota('1h') } },
    });
    ws.task('g/p', { files: ['src/p.ts'] });
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile, '--json'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    // Wait for the park event on the run's own event stream.
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (d) => {
        buffer += d;
        if (buffer.includes('"type":"task.parked"')) resolve();
      });
      child.on('close', () => reject(new Error(`run ended before parking:\n${buffer}`)));
    });
    const status = await runCli(['status', '--workspace', ws.dir, '--json']);
    const report = JSON.parse(status.stdout) as {
      waiting: { task: string; kind: string; until?: string; why: string }[];
    };
    const entry = report.waiting.find((w) => w.task === 'g/p');
    expect(entry?.kind).toBe('parked');
    expect(entry?.why).toMatch(/^parked until .*: every candidate of the worker/);
    const state = JSON.parse(ws.read('agent-task/.switchyard/tasks/g/p.json'));
    expect(state.parked.until).toBe(entry?.until);
    expect(state.failures.worker).toBe(1); // the first quota (with b still free) counted; the park did not
    expect(state.decisions.worker.target).toBe('b');
    const text = await runCli(['status', '--workspace', ws.dir]);
    expect(text.stdout).toContain('parked until');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});
