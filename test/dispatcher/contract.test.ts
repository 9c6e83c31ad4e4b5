import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { archivedWorkLogText, runEngine } from '../engine/harness.js';
import { until, Workspace } from './helpers.js';

/** Task-contract rules of issue 11, each proven on real runs of the scripted fake agent. */

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const work = [{ fillChecklist: true }];
/** A quota error as Claude Code prints it in text mode, with a short reset time. */
const quotaLine =
  'API Error: Request rejected (429) · Rate limit reached: you have exceeded your request quota. Please try again in 2s.';

type Event = Record<string, unknown> & { type: string };
const started = (events: Event[], role = 'worker') =>
  events.filter((e) => e.type === 'attempt.started' && e.role === role).map((e) => e.target);
const promptOf = (attemptDir: unknown) =>
  readFileSync(join(String(attemptDir), 'prompt.md'), 'utf8');

describe('task contract (issue 11), in process', { timeout: 60_000 }, () => {
  it('B.5: once every candidate is used, a failover-class failure stays on the current target (no wrap-around)', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        a: {
          scenario: {
            cases: [{ when: { role: 'worker', attempt: 1 }, steps: [{ fault: 'context-limit' }] }],
            steps: work,
          },
        },
        b: {
          agent: 'text',
          scenario: {
            cases: [
              approve,
              {
                when: { role: 'worker', attempt: 1 },
                steps: [{ print: quotaLine }, { exit: 1 }],
              },
            ],
            steps: work,
          },
        },
      },
      ['a', 'b'],
      ['b'],
    );
    ws.task('g/wrap', { files: ['src/wrap.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const events = result.events;
    expect(started(events)).toEqual(['a', 'b', 'b']);
    const failovers = events.filter((e) => e.type === 'target.failover');
    expect(failovers.map((e) => [e.from, e.to])).toEqual([['a', 'b']]);
    const retry = events.find((e) => e.type === 'attempt.retry-scheduled');
    expect(retry).toMatchObject({ target: 'b' });
    // The cooldown the quota error named is honoured on the current target.
    expect(Number(retry?.delayMs)).toBeGreaterThan(1000);
  });

  it('B.6: a target pin and --with put that target first; the route stays as failover; dry run shows the order', async () => {
    const ws = new Workspace();
    // Broken as workers only: the review avoids the worker's target, so it runs on them.
    const broken = { scenario: { cases: [approve], steps: [{ fault: 'overloaded' }] } };
    ws.catalog({ a: { scenario: { cases: [approve], steps: work } }, b: broken, c: broken }, [
      'a',
      'b',
      'c',
    ]);
    ws.task('g/pinned', { files: ['src/p.ts'], target: 'b' });
    const dry = await ws.run(['--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const report = JSON.parse(dry.stdout);
    const task = report.tasks.find((t: { id: string }) => t.id === 'g/pinned');
    expect(task.stages.worker).toMatchObject({ selected: 'b', candidates: ['b', 'a', 'c'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    expect(started(result.events)).toEqual(['b', 'a']);
    expect(result.events.find((e) => e.type === 'target.failover')).toMatchObject({
      from: 'b',
      to: 'a',
    });

    const withRun = new Workspace();
    withRun.catalog({ a: { scenario: { cases: [approve], steps: work } }, b: broken, c: broken }, [
      'a',
      'b',
      'c',
    ]);
    withRun.task('g/with', { files: ['src/w.ts'] });
    const viaWith = await runEngine(withRun, { with: 'c' });
    expect(viaWith.code, viaWith.stdout).toBe(0);
    expect(started(viaWith.events)).toEqual(['c', 'a']);
  });

  it('B.7: the failover context of a retry cites the latest failed attempt', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        a: { scenario: { steps: [{ fault: 'overloaded' }] } },
        b: {
          scenario: {
            cases: [
              approve,
              {
                when: { role: 'worker', attempt: 1 },
                steps: [{ print: 'TypeError: x is undefined', stream: 'stderr' }, { exit: 1 }],
              },
              {
                when: { role: 'worker', attempt: 2 },
                steps: [{ print: 'TypeError: y is undefined', stream: 'stderr' }, { exit: 1 }],
              },
            ],
            steps: work,
          },
        },
      },
      ['a', 'b'],
      ['b'],
    );
    ws.task('g/cite', { files: ['src/c.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const runs = result.events.filter((e) => e.type === 'attempt.started' && e.role === 'worker');
    expect(runs.map((e) => e.target)).toEqual(['a', 'b', 'b', 'b']);
    // The failed retry on b (its evidence is kept) cites b's first attempt, not a's.
    const retry = promptOf(runs[2]!.attemptDir);
    expect(retry).toContain(join(String(runs[1]!.attemptDir), 'locator.json'));
    expect(retry).not.toContain(join(String(runs[0]!.attemptDir), 'locator.json'));
    expect(retry).toContain('ran on target b and ended with\n`generic-error`');
  });

  it('B.8: a malformed review file gets a correction prompt naming what was wrong', async () => {
    const ws = new Workspace();
    ws.catalog({
      only: {
        scenario: {
          cases: [
            {
              when: { role: 'review', attempt: 1 },
              steps: [{ review: 'Looks fine to me.\n' }],
            },
            {
              when: { role: 'review', attempt: 2 },
              steps: [{ review: 'Verdict: MAYBE\n' }],
            },
            approve,
          ],
          steps: work,
        },
      },
    });
    ws.task('g/malformed', { files: ['src/m.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const events = result.events;
    const reviews = events.filter((e) => e.type === 'attempt.started' && e.role === 'review');
    expect(reviews).toHaveLength(3);
    const failed = events.filter(
      (e) => e.type === 'attempt.finished' && e.result === 'review-control-failure',
    );
    expect(failed).toHaveLength(2);
    // Both failed attempts keep their evidence: the second prompt names the first's problems.
    const problems = failed[0]!.evidence as string[];
    expect(problems.length).toBeGreaterThan(0);
    const first = promptOf(reviews[0]!.attemptDir);
    const second = promptOf(reviews[1]!.attemptDir);
    expect(first).not.toContain('Correction');
    for (const problem of problems) expect(second).toContain(problem);
  });

  it('B.11: work-log rows name the task artifact and an attempt ordinal per stage', async () => {
    const ws = new Workspace();
    ws.catalog({
      only: {
        scenario: {
          cases: [
            {
              when: { role: 'review', attempt: 1 },
              steps: [
                {
                  review: 'Verdict: CHANGES_REQUESTED\n\n- [MODERATE] src/a.ts:1 needs a test\n',
                  nextPlan: [
                    '---',
                    'route: cloud-G01',
                    '---',
                    '# g/art',
                    '',
                    '## Modified Files Summary',
                    '',
                    '- src/a.ts',
                    '',
                    '## Implementation Checklist',
                    '',
                    '- [ ] add the test',
                    '',
                  ].join('\n'),
                },
              ],
            },
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [{ print: 'boom', stream: 'stderr' }, { exit: 1 }],
            },
          ],
          steps: work,
        },
      },
    });
    ws.task('g/art', { files: ['src/a.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const rows = (await archivedWorkLogText(result.store, 'g', 1))
      .split('\n')
      .filter((l) => l.includes('| FINISH |'))
      .map((l) => l.split('|').map((c) => c.trim()));
    // | time | event | task artifact | plan loop | role | attempt | agent/model | result | locator |
    const view = rows.map((c) => [c[3], c[4], c[5], c[6], c[8]]);
    // The write-set check (snapshots of the workspace: no git here) and the change verification
    // (no definition of done) judge each worker round with rows of their own.
    expect(view).toEqual([
      ['g/art/PLAN.md', '1 of 5', 'worker', '1', 'generic-error'],
      ['g/art/PLAN.md', '1 of 5', 'worker', '2', 'success'],
      ['g/art/no change', '1 of 5', 'writeset', '1', 'success'],
      ['g/art/PLAN.md', '1 of 5', 'gate', '1', 'success'],
      ['g/art/CODE_REVIEW-1.md', '1 of 5', 'review', '1', 'success'],
      ['g/art/PLAN-2.md', '2 of 5', 'worker', '1', 'success'],
      ['g/art/no change', '2 of 5', 'writeset', '1', 'success'],
      ['g/art/PLAN-2.md', '2 of 5', 'gate', '1', 'success'],
      ['g/art/CODE_REVIEW-2.md', '2 of 5', 'review', '1', 'success'],
    ]);
  });

  it('B.13: a definition-of-done gate does not take a max_parallel agent slot', async () => {
    const ws = new Workspace();
    ws.catalog({
      only: {
        scenario: {
          cases: [
            approve,
            {
              when: { task: 'g/b', role: 'worker' },
              steps: [{ write: { path: 'src/b.ts', content: 'b\n' } }, ...work],
            },
          ],
          steps: work,
        },
      },
    });
    // g/a's gate waits for the file g/b's worker writes: with one agent slot it ends only when
    // the gate leaves the slot to g/b (a gate holding it would wait until the test's time-out).
    const wait =
      "const f=require('fs');(function w(){if(f.existsSync('src/b.ts'))process.exit(0);setTimeout(w,50)})()";
    ws.task('g/a', {
      files: ['src/a.ts'],
      done: { command: `${process.execPath} -e "${wait}"`, assertion: 'exit code 0' },
    });
    ws.task('g/b', { files: ['src/b.ts'] });
    const result = await runEngine(ws, { maxParallel: 1 });
    expect(result.code, result.stdout).toBe(0);
    const gates = result.events.filter((e) => e.type === 'gate.finished');
    expect(gates[0]).toMatchObject({ task: 'g/a', passed: true });
  });

  it('B.14: an authentication failure blocks the stage after at most one retry, naming the target and the message', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [{ fault: 'auth' }] } } });
    ws.task('g/auth', { files: ['src/auth.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    const events = result.events;
    expect(started(events).length).toBeLessThanOrEqual(2);
    const blocked = events.find((e) => e.type === 'task.blocked');
    expect(String(blocked?.reason)).toMatch(
      /^authentication failed for target a: .*invalid (?:x-)?api key/i,
    );
    expect(result.stdout).toContain('authentication failed for target a');
  });

  it('B.16: reasons show the error message, never a JSON line cut in the middle', async () => {
    const ws = new Workspace();
    const resultLine = JSON.stringify({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      duration_ms: 12,
      duration_api_ms: 0,
      num_turns: 1,
      result: 'Tool permission request failed: Bash is not allowed here',
      session_id: '00000000-0000-4000-8000-000000000000',
      total_cost_usd: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 },
    });
    ws.catalog({
      only: {
        scenario: {
          cases: [
            approve,
            { when: { role: 'worker', attempt: 1 }, steps: [{ print: resultLine }, { exit: 1 }] },
          ],
          steps: work,
        },
      },
    });
    ws.task('g/json', { files: ['src/j.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const retry = result.events.find((e) => e.type === 'attempt.retry-scheduled');
    expect(retry?.reason).toBe(
      'generic-error: Tool permission request failed: Bash is not allowed here',
    );
    const line = result.stdout.split('\n').find((l) => l.startsWith('retry'));
    expect(line).toContain('Tool permission request failed: Bash is not allowed here');
    expect(line).not.toContain('{');
  });
});

describe('task contract (issue 11), fake agents as real processes', { timeout: 120_000 }, () => {
  it('B.10: a work-log failure is a control-plane failure (exit 1), not charged to the agent stage', async () => {
    const ws = new Workspace();
    const steps = [{ waitFor: 'release' }, ...work];
    ws.catalog({ only: { scenario: { cases: [approve], steps } } });
    ws.task('g/log', { files: ['src/l.ts'] });
    const run = ws.run();
    // Once the START row is written, WORK_LOG.md becomes a dangling link into a missing folder
    // (a link planted mid-run is refused, never followed): the FINISH row cannot be written.
    const log = ws.path('agent-task', 'g', 'WORK_LOG.md');
    // Bounded by the test's time-out only: a loaded machine starts the CLI and agent slowly.
    await until(
      () => existsSync(log) && readFileSync(log, 'utf8').includes('START'),
      'the START row',
    );
    rmSync(log);
    symlinkSync(ws.path('missing', 'dir', 'log.md'), log);
    writeFileSync(ws.path('release'), '');
    const result = await run;
    expect(result.code, result.stdout).toBe(1);
    const events = ws.events();
    expect(events.filter((e) => e.type === 'task.blocked')).toEqual([]);
    expect(events.find((e) => e.type === 'control.failure')).toMatchObject({ code: 'SY_WORK_LOG' });
    const state = JSON.parse(ws.read('agent-task/.switchyard/tasks/g/log.json'));
    expect(state.failures.worker).toBe(0);
    expect(state.blocked).toBeUndefined();
  });

  it('A.5: native resume is planned by the runner plugin, which refuses a session of another workspace', async () => {
    const ws = new Workspace();
    const sessionId = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
    const sessions = ws.path('.sessions');
    mkdirSync(join(sessions, 'proj'), { recursive: true });
    // The session file records another project's working directory.
    writeFileSync(
      join(sessions, 'proj', `${sessionId}.jsonl`),
      `${JSON.stringify({ type: 'user', cwd: '/elsewhere/other-project', sessionId })}\n`,
    );
    ws.catalog({
      s: {
        selfcheck: true,
        resume: true,
        native: 'claude-code',
        sessionPath: sessions,
        scenario: {
          sessionId,
          cases: [approve],
          steps: [{ say: 'implemented, checklist not ticked yet' }],
        },
      },
    });
    ws.task('g/foreign', { files: ['src/f.ts'] });
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(3);
    const blocked = ws.events().find((e) => e.type === 'task.blocked');
    expect(String(blocked?.reason)).toMatch(/belongs to another workspace/);
    // The first self-check pass started a new context; the retry was refused, not resumed.
    expect(started(ws.events(), 'selfcheck')).toHaveLength(1);
  });
});
