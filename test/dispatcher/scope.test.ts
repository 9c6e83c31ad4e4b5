import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archivedWorkLogText, runEngine } from '../engine/harness.js';
import { Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('switchyard run: scope and review control (fake agents, in process)', {
  timeout: 60_000,
}, () => {
  it('runs only --task-group, leaving other groups untouched, and archives that group log', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    ws.task('api/one', { files: ['src/api.ts'] });
    ws.task('api/two', { files: ['src/api2.ts'], dependsOn: ['one'] });
    ws.task('web/page', { files: ['src/web.ts'] });
    const result = await runEngine(ws, { taskGroup: 'api' });
    expect(result.code, result.stdout).toBe(0);
    expect(ws.exists('agent-task/archive/api/one/complete.log')).toBe(true);
    expect(ws.exists('agent-task/archive/api/two/complete.log')).toBe(true);
    expect(await archivedWorkLogText(result.store, 'api', 1)).toContain('| FINISH |');
    expect(ws.exists('agent-task/web/page/PLAN.md')).toBe(true);
    expect(result.events.some((e) => e.task === 'web/page' && e.type === 'attempt.started')).toBe(
      false,
    );
    expect((await runEngine(ws, { taskGroup: 'nope' })).code).toBe(2);
  });

  it('`with <agent>` and a PLAN pin choose the worker; the review keeps its route and never reviews its own work; the dry run shows both', async () => {
    const ws = new Workspace();
    const ok = { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } };
    // a, b: claude-code; c, d: codex (seed 003's `with codex`).
    ws.catalog(
      { a: ok, b: ok, c: { ...ok, agent: 'codex' }, d: { ...ok, agent: 'codex' } },
      ['a', 'd', 'c'],
      ['d', 'a'],
    );
    ws.task('g/pinned', { files: ['src/p.ts'], target: 'b' });
    ws.task('g/free', { files: ['src/f.ts'] });
    const dry = await ws.run(['--dry-run', '--json', '--with', 'codex']);
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    const stagesOf = (id: string) =>
      JSON.parse(dry.stdout).tasks.find((t: { id: string }) => t.id === id).stages;
    expect(stagesOf('g/free')).toMatchObject({
      worker: { selected: 'd', selected_by: 'with', candidates: ['d', 'a', 'c'] },
      review: { selected: 'a', selected_by: 'route', candidates: ['a'], not_worker: 'd' },
    });
    expect(stagesOf('g/pinned')).toMatchObject({
      worker: { selected: 'b', selected_by: 'pin' },
      review: { selected: 'd', candidates: ['d', 'a'] },
    });
    const human = await ws.run(['--dry-run', '--with', 'codex']);
    expect(human.stdout).toContain("stages      worker d (with), review a (not the worker's d)");
    const result = await runEngine(ws, { with: 'codex' });
    expect(result.code, result.stdout).toBe(0);
    const on = (task: string) =>
      result.events
        .filter((e) => e.type === 'attempt.started' && e.task === task)
        .map((e) => `${e.role}:${e.target}`);
    expect(on('g/pinned')).toEqual(['worker:b', 'review:d']);
    expect(on('g/free')).toEqual(['worker:d', 'review:a']);
    const decided = result.events.filter((e) => e.type === 'stage.decided');
    expect(new Set(decided.map((e) => `${e.task}:${e.stage}:${e.source}`))).toEqual(
      new Set([
        'g/pinned:worker:pin',
        'g/pinned:review:route',
        'g/free:worker:with',
        'g/free:review:route',
      ]),
    );
    // An agent no candidate of the route serves: refused before anything runs.
    const other = await ws.run(['--with', 'gemini-cli']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      'with "gemini-cli" is neither a target id nor an agent of the catalog',
    );
  });

  it('treats a malformed review as review-control-failure: same target, retried, then archived', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        a: {
          scenario: {
            cases: [
              { when: { role: 'review', attempt: 1 }, steps: [{ review: 'Looks fine to me.\n' }] },
              approve,
            ],
            steps: [{ fillChecklist: true }],
          },
        },
        b: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } },
      },
      // b works, a reviews (a target never reviews its own work while the route has another).
      ['b', 'a'],
      ['a', 'b'],
    );
    ws.task('g/r', { files: ['src/r.ts'] });
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const events = result.events;
    expect(events.filter((e) => e.type === 'target.failover')).toEqual([]);
    const retry = events.find((e) => e.type === 'attempt.retry-scheduled');
    expect(retry).toMatchObject({ role: 'review', target: 'a' });
    expect(String(retry?.reason)).toMatch(
      /^review-control-failure: CODE_REVIEW-1.md: no verdict line/,
    );
    const reviews = events.filter((e) => e.type === 'attempt.started' && e.role === 'review');
    expect(reviews.map((e) => e.target)).toEqual(['a', 'a']);
    const finished = (await archivedWorkLogText(result.store, 'g', 1))
      .split('\n')
      .filter((l) => l.includes('| FINISH |') && l.includes('| review |'))
      .map((l) => l.split(' | ')[7]);
    expect(finished).toEqual(['review-control-failure', 'success']);
  });
});

describe('switchyard run: scope and review control (fake agents as real processes)', {
  timeout: 120_000,
}, () => {
  it('archives a group work log an earlier run left behind', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    ws.task('g/t', { files: ['src/t.ts'] });
    mkdirSync(ws.path('agent-task/old'));
    writeFileSync(ws.path('agent-task/old/WORK_LOG.md'), '# Work log: old\n');
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    expect(ws.read('agent-task/archive/old/work_log_1.log')).toBe('# Work log: old\n');
    expect(ws.exists('agent-task/old')).toBe(false);
  });
});
