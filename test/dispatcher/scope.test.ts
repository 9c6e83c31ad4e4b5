import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Workspace } from './helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('switchyard run: scope and review control (fake agents as real processes)', {
  timeout: 120_000,
}, () => {
  it('runs only --task-group, leaving other groups untouched, and archives that group log', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    ws.task('api/one', { files: ['src/api.ts'] });
    ws.task('api/two', { files: ['src/api2.ts'], dependsOn: ['one'] });
    ws.task('web/page', { files: ['src/web.ts'] });
    const result = await ws.run(['--task-group', 'api']);
    expect(result.code, result.stderr).toBe(0);
    expect(ws.exists('agent-task/archive/api/one/complete.log')).toBe(true);
    expect(ws.exists('agent-task/archive/api/two/complete.log')).toBe(true);
    expect(ws.exists('agent-task/archive/api/work_log_1.log')).toBe(true);
    expect(ws.exists('agent-task/web/page/PLAN.md')).toBe(true);
    expect(ws.events().some((e) => e.task === 'web/page' && e.type === 'attempt.started')).toBe(
      false,
    );
    expect((await ws.run(['--task-group', 'nope'])).code).toBe(2);
  });

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

  it('runs a PLAN pin over --with over the route, for every stage', async () => {
    const ws = new Workspace();
    const ok = { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } };
    ws.catalog({ a: ok, b: ok, c: ok }, ['a']);
    ws.task('g/pinned', { files: ['src/p.ts'], target: 'b' });
    ws.task('g/free', { files: ['src/f.ts'] });
    const result = await ws.run(['--with', 'c']);
    expect(result.code, result.stderr).toBe(0);
    const on = (task: string) =>
      ws
        .events()
        .filter((e) => e.type === 'attempt.started' && e.task === task)
        .map((e) => `${e.role}:${e.target}`);
    expect(on('g/pinned')).toEqual(['worker:b', 'review:b']);
    expect(on('g/free')).toEqual(['worker:c', 'review:c']);
    const decided = ws.events().filter((e) => e.type === 'stage.decided');
    expect(new Set(decided.map((e) => `${e.task}:${e.source}`))).toEqual(
      new Set(['g/pinned:pin', 'g/free:with']),
    );
  });

  it('treats a malformed review as review-control-failure: same target, retried, then archived', async () => {
    const ws = new Workspace();
    ws.catalog({
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
    });
    ws.task('g/r', { files: ['src/r.ts'] });
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    const events = ws.events();
    expect(events.filter((e) => e.type === 'target.failover')).toEqual([]);
    const retry = events.find((e) => e.type === 'attempt.retry-scheduled');
    expect(retry).toMatchObject({ role: 'review', target: 'a' });
    expect(String(retry?.reason)).toMatch(
      /^review-control-failure: CODE_REVIEW-1.md: no verdict line/,
    );
    const reviews = events.filter((e) => e.type === 'attempt.started' && e.role === 'review');
    expect(reviews.map((e) => e.target)).toEqual(['a', 'a']);
    const finished = ws
      .read('agent-task/archive/g/work_log_1.log')
      .split('\n')
      .filter((l) => l.includes('| FINISH |') && l.includes('| review |'))
      .map((l) => l.split(' | ')[7]);
    expect(finished).toEqual(['review-control-failure', 'success']);
  });
});
