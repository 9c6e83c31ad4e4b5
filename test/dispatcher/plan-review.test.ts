import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import { Workspace } from './helpers.js';

const FINDINGS = [
  '- [CRITICAL] g/vague/PLAN.md: the goal "improve things" gives no way to tell done',
  '- [MODERATE] g/vague/PLAN.md: no Definition of Done command',
  '- [MINOR] g/ok/PLAN.md: checklist wording',
  '',
  'Verdict: CHANGES_REQUESTED',
  '',
].join('\n');

/** A workspace whose single target reviews plans with `findings` and otherwise does the work. */
function workspace(findings: string): Workspace {
  const ws = new Workspace();
  ws.catalog({
    a: {
      scenario: {
        cases: [
          { when: { role: 'plan-review' }, steps: [{ review: findings }] },
          { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
        ],
        steps: [{ fillChecklist: true }],
      },
    },
  });
  ws.task('g/vague', { files: ['src/vague.ts'], checklist: ['improve things'] });
  ws.task('g/ok', { files: ['src/ok.ts'] });
  return ws;
}

// The commands run the CLI's own entry in this process (test/engine/cli-in-process.ts); the
// reviewer and workers are fake agents as processes.
describe('plan review (advisory), scripted fake agent as the reviewer', {
  timeout: 120_000,
}, () => {
  it('reports the findings by severity, as text and --json, with the plans in the prompt', async () => {
    const ws = workspace(FINDINGS);
    const args = ['plan', 'review', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile];
    const json = await cli([...args, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      target: 'a',
      route: 'cloud-G04',
      plans: ['agent-task/g/ok/PLAN.md', 'agent-task/g/vague/PLAN.md'],
      counts: { critical: 1, moderate: 1, minor: 1 },
      critical: true,
    });
    expect(report.findings[0]).toMatchObject({
      severity: 'CRITICAL',
      text: 'g/vague/PLAN.md: the goal "improve things" gives no way to tell done',
    });
    const prompt = readFileSync(join(dirname(report.findingsFile), 'prompt.md'), 'utf8');
    expect(prompt).toContain('### agent-task/g/vague/PLAN.md');
    expect(prompt).toContain('- [ ] improve things');
    expect(prompt).toContain('missing or untestable Definition of Done');
    const text = await cli(args);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('1 critical, 1 moderate, 1 minor');
    expect(text.stdout).toMatch(/CRITICAL\s+g\/vague\/PLAN\.md: the goal/);
  });

  it("does not hand the reviewer the dispatcher's SWITCHYARD_STORE", async () => {
    const ws = new Workspace();
    // The reviewer names a file after the variable: store-.txt when it does not have it.
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'plan-review' },
              steps: [
                {
                  write: {
                    path: '${SWITCHYARD_WORKSPACE}/store-${SWITCHYARD_STORE}.txt',
                    content: 'x',
                  },
                },
                { review: 'Verdict: APPROVED\n' },
              ],
            },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/ok', { files: ['src/ok.ts'] });
    process.env.SWITCHYARD_STORE = 'secretstore';
    try {
      const r = await cli([
        'plan',
        'review',
        '--workspace',
        ws.dir,
        '--execution-catalog',
        ws.catalogFile,
      ]);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      delete process.env.SWITCHYARD_STORE;
    }
    expect(existsSync(ws.path('store-.txt'))).toBe(true);
    expect(existsSync(ws.path('store-secretstore.txt'))).toBe(false);
  });

  it('reviews one plan file given as an argument', async () => {
    const ws = workspace('- [MINOR] plan.yaml: name the output file\n');
    writeFileSync(ws.path('plan.yaml'), 'tasks:\n  - id: a\n    goal: add a flag\n');
    const r = await cli([
      'plan',
      'review',
      ws.path('plan.yaml'),
      '--execution-catalog',
      ws.catalogFile,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      plans: ['plan.yaml'],
      counts: { critical: 0, moderate: 0, minor: 1 },
      critical: false,
    });
  });

  it('run --review-plans stops on a CRITICAL finding before any agent works', async () => {
    const ws = workspace(FINDINGS);
    const r = await runInProcess(ws, ['--review-plans']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('run stopped: the plan review found 1 CRITICAL finding(s)');
    expect(ws.events().filter((e) => e.type === 'attempt.started')).toEqual([]);
  });

  it('run --review-plans goes on when nothing is CRITICAL', async () => {
    const ws = workspace('- [MINOR] g/ok/PLAN.md: wording\n\nVerdict: APPROVED\n');
    const r = await runInProcess(ws, ['--review-plans']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('0 critical, 0 moderate, 1 minor');
    expect(ws.exists('agent-task/archive/g/ok/complete.log')).toBe(true);
  });
});
