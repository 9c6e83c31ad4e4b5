import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace } from '../isolation/git-workspace.js';
import { runCli } from './helpers.js';

const PLAN = `version: 1
kind: orchestrate-plan
metadata: { id: rel, title: Release }
lanes:
  - { id: "0", label: Setup }
  - { id: "1", label: Build }
tasks:
  - { id: one, title: One, lane: "0", files: [src/one.txt] }
  - { id: two, title: Two, lane: "1", files: [src/two.txt] }
`;

describe('a YAML plan in a fresh repository: the session, its monitor and a resume (fake agents)', {
  timeout: 240_000,
}, () => {
  it('creates agent-task/, starts --json with session.started, keeps the session folder current, reviews the plan first; a relative-path session resumes from anywhere', async () => {
    const ws = gitWorkspace({ 'README.md': 'fresh\n' });
    // A fresh repository: no agent-task/ and no switchyard config, only the plan.
    rmSync(ws.path('agent-task'), { recursive: true, force: true });
    git(ws.dir, 'rm', '-q', 'switchyard.config.json');
    // Nothing ignored either: only the harness's own files.
    writeFileSync(ws.path('.gitignore'), '.catalog.json\n.scenario-*\n');
    git(ws.dir, 'add', '.gitignore');
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'plan-review' },
              steps: [{ review: '- [MINOR] plan.yaml: say what src/one.txt holds\n' }],
            },
            { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
            {
              when: { role: 'worker', task: 'rel/one' },
              steps: [
                { write: { path: 'src/one.txt', content: 'one\n' } },
                { fillChecklist: true },
              ],
            },
            // Task two's agent is not signed in: it blocks (exit 3), the session stays open.
            { when: { role: 'worker', task: 'rel/two' }, steps: [{ fault: 'auth' }] },
          ],
        },
      },
    });
    writeFileSync(ws.path('plan.yaml'), PLAN);
    git(ws.dir, 'add', 'plan.yaml');
    git(ws.dir, 'commit', '-qm', 'plan');
    expect(existsSync(ws.path('agent-task'))).toBe(false);

    // The plan path as typed, relative to the repository (the shell's folder).
    const first = await runCli(
      ['run', 'plan.yaml', '--execution-catalog', ws.catalogFile, '--json'],
      { cwd: ws.dir },
    );
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const lines = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [started] = lines;
    const sessionDir = ws.path('agent-task/.switchyard/sessions', started.session_id);
    expect(started).toMatchObject({
      type: 'session.started',
      resumed: false,
      workspace: realpathSync(ws.dir),
      session_dir: sessionDir,
      plan: { file: realpathSync(ws.path('plan.yaml')), id: 'rel', title: 'Release' },
      tasks: 2,
      monitor_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/),
    });
    expect(lines[1].type).toBe('run.started');
    expect(ws.exists('agent-task/archive/rel/one/complete.log')).toBe(true);
    // The advisory plan review ran first, on stderr.
    const review = first.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'plan-review.finished');
    expect(review).toMatchObject({ advisory: true, counts: { minor: 1 }, plans: ['plan.yaml'] });

    // The session folder: the plan as run (its resolved path), the monitor it served, and a
    // status snapshot of every task.
    const plan = JSON.parse(readFileSync(join(sessionDir, 'plan.json'), 'utf8'));
    expect(plan.yamlPlan.file).toBe(realpathSync(ws.path('plan.yaml')));
    expect(plan.yamlPlan.parsed.lanes).toEqual([
      { id: '0', label: 'Setup' },
      { id: '1', label: 'Build' },
    ]);
    const monitor = JSON.parse(readFileSync(join(sessionDir, 'monitor-server.json'), 'utf8'));
    expect(monitor).toMatchObject({
      url: started.monitor_url,
      pid: expect.any(Number),
      stoppedAt: expect.any(String),
    });
    const status = JSON.parse(readFileSync(join(sessionDir, 'status.json'), 'utf8'));
    expect(status).toMatchObject({
      state: 'blocked',
      exitCode: 3,
      counts: { done: 1, blocked: 1 },
      tasks: {
        'rel/one': { state: 'done' },
        'rel/two': { state: 'blocked', stage: 'worker' },
      },
    });

    // Resumed from another folder: the stored plan runs again as it started (no "changed").
    const resumed = await runCli(['resume', started.session_id, '--workspace', ws.dir, '--json']);
    expect(resumed.stderr).not.toContain('changed in the plan');
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(3);
    expect(JSON.parse(resumed.stdout.split('\n')[0]!)).toMatchObject({
      type: 'session.started',
      session_id: started.session_id,
      resumed: true,
      plan: { file: realpathSync(ws.path('plan.yaml')) },
    });
    expect(readdirSync(ws.path('agent-task/.switchyard/sessions'))).toEqual([started.session_id]);
  });
});
