import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TrialWorkspace } from './kit.js';

/**
 * After a task is archived, every file its archived work log and its complete.log cite still
 * exists: a successful attempt keeps its locator and its (size-capped) normalized transcript,
 * and its bulky raw output is dropped.
 */
describe('archived work log and complete.log cite only files that exist', () => {
  it('keeps the locator and normalized transcript of successful attempts', {
    timeout: 120_000,
  }, async () => {
    const ws = new TrialWorkspace('sy-archive-evidence-');
    const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
    ws.catalog({
      primary: {
        cases: [approve, { when: { role: 'worker', task: 'g/b' }, steps: [{ fault: 'quota' }] }],
        steps: [{ say: 'working' }, { fillChecklist: true }, { result: 'done' }],
      },
      backup: {
        cases: [approve],
        steps: [{ say: 'working' }, { fillChecklist: true }, { result: 'done' }],
      },
    });
    ws.task('g/a', { files: ['src/a.ts'] });
    ws.task('g/b', { files: ['src/b.ts'] });
    const run = ws.start();
    const exit = await run.exited;
    expect(exit.code, run.stdout + run.stderr).toBe(0);

    const resolve = (p: string) => (isAbsolute(p) ? p : join(ws.dir, p));
    const archive = ws.path('agent-task/archive/g');
    const logs = readdirSync(archive).filter((f) => f.startsWith('work_log_'));
    expect(logs).toHaveLength(1);
    const locators = readFileSync(join(archive, logs[0]!), 'utf8')
      .split('\n')
      .filter((l) => /\| (START|FINISH) \|/.test(l))
      .map((l) => l.split('|')[9]!.trim());
    // 2 workers + 1 failed worker + 2 reviews, and per successful worker round its write-set
    // check and change verification: START+FINISH each.
    expect(locators.length).toBe(18);
    for (const locator of locators) expect(existsSync(resolve(locator)), locator).toBe(true);

    for (const task of ['a', 'b']) {
      const complete = readFileSync(join(archive, task, 'complete.log'), 'utf8');
      const cited = [...complete.matchAll(/(agent-task\/\S+)/g)].map((m) => m[1]!);
      expect(cited.length, complete).toBeGreaterThan(0);
      for (const path of cited) expect(existsSync(resolve(path)), `${task}: ${path}`).toBe(true);
    }
    // A successful attempt keeps its readable transcript; its raw output is gone.
    const success = locators.find((l) => l.includes('g.a.worker'))!;
    const dir = resolve(success).replace(/\/locator\.json$/, '');
    expect(readFileSync(join(dir, 'normalized-output.log'), 'utf8')).toContain('working');
    expect(existsSync(join(dir, 'stdout.raw'))).toBe(false);
    expect(statSync(join(dir, 'normalized-output.log')).size).toBeLessThanOrEqual(64 * 1024);
  });
});
