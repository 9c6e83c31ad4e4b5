import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runEngine, taskStates } from '../engine/harness.js';
import { CLI, runCli, stopWhenTestEnds, Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
/** A provider quota error that names its reset time, as Claude Code prints it. */
const quota = (after: string) => [
  {
    print: `API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Rate limit reached. Please try again in ${after}."}}`,
    stream: 'stderr',
  },
  { exit: 1 },
];

// The rules themselves (earliest reset first, the park budget) are tested in-process in
// core's selection/park.test.ts and dispatcher/park-stage.test.ts; these runs check them on
// the whole engine (in process), and the status of a parked run end to end. No assertion
// depends on how fast the machine is.
describe('parking a stage until its quota resets (in process)', { timeout: 60_000 }, () => {
  it('goes back to the candidate whose reset passed instead of waiting on a later one', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          cases: [approve, { when: { role: 'worker', attempt: 1 }, steps: quota('2s') }],
          steps: [{ fillChecklist: true }, { result: 'done' }],
        },
      },
      // b answers only after a's 2 s have surely passed, with a reset an hour away.
      b: { scenario: { cases: [approve], steps: [{ sleep: 2500 }, ...quota('1h')] } },
    });
    ws.task('g/p', { files: ['src/p.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout + result.stdout).toBe(0);
    const events = result.events;
    const workers = events.filter((e) => e.type === 'attempt.started' && e.role === 'worker');
    expect(workers.map((e) => e.target)).toEqual(['a', 'b', 'a']);
    const back = events.find((e) => e.type === 'target.failover' && e.from === 'b');
    expect(back).toMatchObject({ task: 'g/p', to: 'a', class: 'provider-quota' });
    expect(String((back?.evidence as string[] | undefined)?.at(-1))).toMatch(
      /a: its quota reset .* has passed/,
    );
    expect(events.some((e) => e.type === 'task.parked')).toBe(false);
    expect(events.some((e) => e.type === 'attempt.retry-scheduled')).toBe(false);
    expect(ws.exists('agent-task/archive/g/p/complete.log')).toBe(true);
  });

  it("blocks with every candidate's quota evidence and an escalation once the park budget is spent", async () => {
    const ws = new Workspace();
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, park: { maxParks: 2 } });
    ws.catalog({
      a: { scenario: { cases: [approve], steps: quota('1s') } },
      b: { scenario: { cases: [approve], steps: quota('1s') } },
    });
    ws.task('g/p', { files: ['src/p.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    const state = (await taskStates(result.store)).get('g/p')!;
    expect(state.blocked!.reason).toMatch(
      /2 consecutive parks for quota resets \(park.maxParks 2\)/,
    );
    expect(state.blocked!.evidence.map((l) => l.split(':')[0])).toEqual(['a', 'b']);
    expect(state.blocked!.evidence.join('\n')).toMatch(/Rate limit reached/);
    // a, b (failover), then two parks or moves, then the stage blocks: 4 launches, not 31.
    const events = result.events;
    expect(events.filter((e) => e.type === 'attempt.started')).toHaveLength(4);
    expect(events.some((e) => e.type === 'task.escalated' && e.task === 'g/p')).toBe(true);
    const { bundle } = (await result.store.escalations.get('g/p'))!;
    expect(bundle.failure).toMatchObject({ stage: 'worker', class: 'provider-quota' });
    expect(bundle.lastAttempt.stderrTail.join('\n')).toMatch(/Rate limit reached/);
    expect(bundle.question).toMatch(
      /keeps answering with a quota reset.*wait for a quota to reset/,
    );
  });
});

describe('parking a stage until its quota resets (fake agents as real processes)', {
  timeout: 120_000,
}, () => {
  it('shows a parked task as "parked until T" with its park budget in status and keeps its budget', async () => {
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
    stopWhenTestEnds(child);
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
      waiting: {
        task: string;
        kind: string;
        until?: string;
        why: string;
        parkBudget?: { parksLeft: number; waitLeftMs: number };
      }[];
    };
    const entry = report.waiting.find((w) => w.task === 'g/p');
    expect(entry?.kind).toBe('parked');
    expect(entry?.why).toMatch(/^parked until .*: every candidate of the worker/);
    const state = JSON.parse(ws.read('agent-task/.switchyard/tasks/g/p.json'));
    // One park of about an hour spent of the default 6 h and 10 parks.
    expect(entry?.parkBudget).toEqual({
      parksLeft: 9,
      waitLeftMs: 6 * 3600_000 - (Date.parse(state.parked.until) - Date.parse(state.parked.at)),
    });
    expect(state.parked.until).toBe(entry?.until);
    expect(state.failures.worker).toBe(1); // the first quota (with b still free) counted; the park did not
    expect(state.decisions.worker.target).toBe('b');
    const text = await runCli(['status', '--workspace', ws.dir]);
    expect(text.stdout).toContain('parked until');
    expect(text.stdout).toMatch(/park budget: 9 park\(s\) and (5h|4h 59m) of waiting left/);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});
