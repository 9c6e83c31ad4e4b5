import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import {
  git,
  gitWorkspace,
  prompts,
  readIf,
  sourceStatus,
  taskCommits,
  until,
  worktreeFile,
} from './git-workspace.js';

const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
};
const node = process.execPath;

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; the first run and those the test works beside are spawned.
describe('switchyard run with a git worktree per task (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('lands parallel tasks as one commit each, gates never see the other task’s half-written work, source stays clean', async () => {
    const ws = gitWorkspace({ 'src/keep.js': 'keep\n' });
    const reviewedA = ws.path('.scenario-a-reviewed');
    const done = { command: `${node} --test`, assertion: 'exit code 0' };
    ws.task('g/a', { files: ['test/a.test.cjs'], done });
    ws.task('g/b', { files: ['test/b.test.cjs'], done });
    ws.task('g/c', { files: ['src/c.js'], dependsOn: ['a'] });
    ws.catalog({
      t: {
        scenario: {
          cases: [
            {
              when: { role: 'review', task: 'g/a' },
              steps: [
                { write: { path: reviewedA, content: 'yes' } },
                { review: 'Verdict: APPROVED\n' },
              ],
            },
            approve,
            {
              when: { role: 'worker', task: 'g/a' },
              steps: [
                {
                  write: {
                    path: 'test/a.test.cjs',
                    content: "require('node:test')('a', () => {});\n",
                  },
                },
                { fillChecklist: true },
              ],
            },
            {
              when: { role: 'worker', task: 'g/b' },
              steps: [
                {
                  write: {
                    path: 'test/b.test.cjs',
                    content:
                      "require('node:test')('b', () => { throw new Error('half-written'); });\n",
                  },
                },
                { waitFor: reviewedA },
                {
                  write: {
                    path: 'test/b.test.cjs',
                    content: "require('node:test')('b', () => {});\n",
                  },
                },
                { fillChecklist: true },
              ],
            },
            {
              when: { role: 'worker', task: 'g/c' },
              steps: [{ write: { path: 'src/c.js', content: 'c\n' } }, { fillChecklist: true }],
            },
          ],
        },
      },
    });
    const result = await ws.run(['--max-parallel', '3']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const events = ws.events();
    // A's gate ran while B's failing test existed (in B's worktree): it passed every time.
    expect(events.filter((e) => e.type === 'gate.finished' && e.passed === false)).toEqual([]);
    const commits = taskCommits(ws);
    expect(commits.map((c) => c.task).sort()).toEqual(['g/a', 'g/b', 'g/c']);
    expect(commits.map((c) => c.subject).sort()).toEqual(['g/a', 'g/b', 'g/c']);
    const body = git(
      ws.dir,
      'log',
      '-1',
      '--format=%B',
      commits.find((c) => c.task === 'g/a')!.sha,
    );
    expect(body).toMatch(/Switchyard-Targets: t/);
    expect(body).toMatch(/Switchyard-Attempts: 2/);
    expect(sourceStatus(ws)).toBe('');
    expect(ws.read('test/b.test.cjs')).not.toContain('half-written');
    // The dependent task started from its predecessor's commit.
    const logC = ws.read('agent-task/archive/g/c/complete.log');
    const aCommit = commits.find((c) => c.task === 'g/a')!.sha;
    expect(
      git(ws.dir, 'merge-base', '--is-ancestor', aCommit, /base commit: (\w+)/.exec(logC)![1]!),
    ).toBe('');
    expect(logC).toContain(`source commit: ${commits.find((c) => c.task === 'g/c')!.sha}`);
    expect(logC).toContain('rollbacks: none');
    // Worktrees and branches are gone after archive.
    expect(git(ws.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(ws.dir, 'branch', '--list', 'switchyard/*')).toBe('');
    // Agents were told not to run git, and worked in their worktree.
    const [workerA] = prompts(ws, 'g/a', 'worker');
    expect(workerA).toContain('Do not run git');
    expect(workerA).toMatch(/switchyard\/worktrees\/[^/\s]+\/g\/a\b/);
    expect(workerA).not.toContain(`${ws.dir}/agent-task/.switchyard/worktrees`);
  });

  it('sends write-set violations and an empty diff back to the worker; revert-outside resets the outside files', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'package.json': '{}\n' });
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, writeSet: 'revert-outside' });
    git(ws.dir, 'commit', '-qam', 'config');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            { when: { role: 'worker', attempt: 1 }, steps: [{ fillChecklist: true }] },
            {
              when: { role: 'worker', attempt: 2 },
              steps: [
                { write: { path: 'src/a.js', content: 'a1\n' } },
                { write: { path: 'src/sneaky.js', content: 'x\n' } },
                { write: { path: 'package.json', content: '{"x":1}\n' } },
                { fillChecklist: true },
              ],
            },
          ],
          steps: [{ write: { path: 'src/a.js', content: 'a2\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const violations = ws.events().filter((e) => e.step === 'writeset-violation');
    expect(violations).toHaveLength(2);
    expect(violations[0]!.detail).toMatch(/no change was made/);
    expect(violations[1]!.files).toEqual(['package.json', 'src/sneaky.js']);
    expect(result.stdout).toMatch(/g\/a: files outside/);
    const workerPrompts = prompts(ws, 'g/a', 'worker');
    expect(workerPrompts[1]).toMatch(/no change was made/);
    expect(workerPrompts[2]).toMatch(/src\/sneaky\.js/);
    // Only the write set landed; the source is clean.
    expect(ws.read('src/a.js')).toBe('a2\n');
    expect(ws.exists('src/sneaky.js')).toBe(false);
    expect(ws.read('package.json')).toBe('{}\n');
    expect(git(ws.dir, 'show', '--name-only', '--format=', 'main')).toBe('src/a.js');
    expect(sourceStatus(ws)).toBe('');
  });

  it('rolls back exactly the task’s commit when the definition of done fails on the source', async () => {
    // The check fails on the source while the user's untracked `broken` flag is there and
    // src/a.js is not "fixed"; in the clean worktree the flag is absent.
    const check = `const fs=require('node:fs');const bad=fs.existsSync('broken')&&fs.readFileSync('src/a.js','utf8')!=='fixed\\n';console.log(bad?'FAIL':'PASS');process.exit(bad?1:0);`;
    const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'check.cjs': check });
    writeFileSync(ws.path('broken'), 'user file\n');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [{ write: { path: 'src/a.js', content: 'v1\n' } }, { fillChecklist: true }],
            },
          ],
          steps: [{ write: { path: 'src/a.js', content: 'fixed\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', {
      files: ['src/a.js'],
      done: { command: `${node} check.cjs`, assertion: 'exit code 0' },
    });
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const rolled = ws.events().filter((e) => e.step === 'rolled-back');
    expect(rolled).toHaveLength(1);
    const commits = taskCommits(ws);
    expect(commits).toHaveLength(1);
    expect(commits[0]!.sha).not.toBe(rolled[0]!.commit);
    expect(ws.read('src/a.js')).toBe('fixed\n');
    expect(sourceStatus(ws)).toBe('?? broken');
    expect(prompts(ws, 'g/a', 'worker')[1]).toMatch(/rolled back/);
    expect(ws.read('agent-task/archive/g/a/complete.log')).toContain(
      `rollbacks: 1 (${rolled[0]!.commit})`,
    );
  });

  it('a conflict with work that landed meanwhile sends the worker back on a fresh worktree from the new tip', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    const goOn = ws.path('.scenario-go-on');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [
                { write: { path: 'src/a.js', content: 'task v1\n' } },
                { waitFor: goOn },
                { fillChecklist: true },
              ],
            },
          ],
          steps: [{ write: { path: 'src/a.js', content: 'task v2\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    const running = ws.run();
    await until(
      () => readIf(worktreeFile(ws, 'g/a', 'src/a.js') ?? '') === 'task v1\n',
      'the worker to write its change',
    );
    writeFileSync(ws.path('src/a.js'), 'user\n');
    git(ws.dir, 'commit', '-qam', 'user change');
    const userCommit = git(ws.dir, 'rev-parse', 'HEAD');
    writeFileSync(goOn, 'go');
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const conflict = ws.events().find((e) => e.step === 'conflict');
    expect(conflict?.files).toEqual(['src/a.js']);
    expect(prompts(ws, 'g/a', 'worker')[1]).toMatch(/conflict: src\/a\.js/);
    expect(ws.read('src/a.js')).toBe('task v2\n');
    expect(git(ws.dir, 'rev-parse', 'HEAD~1')).toBe(userCommit);
    expect(ws.read('agent-task/archive/g/a/complete.log')).toContain(`base commit: ${userCommit}`);
    expect(sourceStatus(ws)).toBe('');
  });

  it('waits while the user’s uncommitted changes overlap the task’s files, and says why', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    const goOn = ws.path('.scenario-go-on');
    const gateStarted = ws.path('.scenario-gate-started');
    // A task gate (in the worktree, between the worker and the review) that waits for the
    // test: the user edits the source while no agent runs. An edit made during an agent
    // attempt would be the source guard's to put back, since it cannot be told from the agent's.
    const waitForGoOn = `const fs=require('node:fs');fs.writeFileSync(process.argv[1],'');(function w(){fs.existsSync(process.argv[2])?process.exit(0):setTimeout(w,50)})();`;
    ws.config({
      gates: [{ name: 'pause', command: [node, '-e', waitForGoOn, gateStarted, goOn] }],
    });
    git(ws.dir, 'commit', '-qam', 'config');
    ws.catalog({
      t: {
        scenario: {
          cases: [approve],
          steps: [{ write: { path: 'src/a.js', content: 'task\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', { files: ['src/a.js'] });
    // Made after the start: a dirty write set at the start is refused by the preflight.
    const running = ws.run();
    await until(() => existsSync(gateStarted), 'the gate after the worker');
    writeFileSync(ws.path('src/a.js'), 'user edit\n');
    writeFileSync(goOn, 'go');
    await until(
      () => ws.events().some((e) => e.type === 'task.waiting' && e.reason === 'apply'),
      'the apply to wait',
    );
    const status = await cli(['status', '--workspace', ws.dir]);
    expect(status.stdout).toMatch(/g\/a .*waits: dirty source overlaps src\/a\.js/);
    // The isolation section: the worktree (branch, base, disk) and the apply queue.
    expect(status.stdout).toMatch(/isolation {2}a git worktree per task · 1 worktree\(s\)/);
    expect(status.stdout).toMatch(/g\/a +active +switchyard\/g\/a base [0-9a-f]{12}/);
    expect(status.stdout).toContain('apply queue: g/a (waiting: dirty source overlaps src/a.js)');
    const json = JSON.parse((await cli(['status', '--workspace', ws.dir, '--json'])).stdout);
    expect(json.isolation).toMatchObject({
      mode: 'worktree',
      applyQueue: [{ task: 'g/a', waiting: 'waiting: dirty source overlaps src/a.js' }],
    });
    expect(json.isolation.bytes).toBeGreaterThan(0);
    expect(ws.read('src/a.js')).toBe('user edit\n');
    git(ws.dir, 'checkout', '--', 'src/a.js');
    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/waiting.*dirty source/);
    expect(ws.read('src/a.js')).toBe('task\n');
    expect(sourceStatus(ws)).toBe('');
  });

  it('apply: patch keeps the diff in the archive and leaves the source untouched', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    ws.catalog({
      t: {
        scenario: {
          cases: [approve],
          steps: [{ write: { path: 'src/a.js', content: 'patched\n' } }, { fillChecklist: true }],
        },
      },
    });
    const plan = ws.task('g/a', { files: ['src/a.js'] });
    writeFileSync(plan, ws.read('agent-task/g/a/PLAN.md').replace('---\n', '---\napply: patch\n'));
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(taskCommits(ws)).toEqual([]);
    expect(ws.read('src/a.js')).toBe('a0\n');
    const patch = ws.read('agent-task/archive/g/a/task.patch');
    expect(patch).toMatch(/^\+patched$/m);
    git(ws.dir, 'apply', '--check', ws.path('agent-task/archive/g/a/task.patch'));
    expect(ws.read('agent-task/archive/g/a/complete.log')).toMatch(/apply: patch/);
  });

  it('dry run and run warn outside git; in git the dry run shows the isolation', async () => {
    const plain = new Workspace();
    plain.catalog({ t: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    plain.task('g/a', { files: ['src/a.js'] });
    const dry = await plain.run(['--dry-run']);
    expect(dry.stdout).toMatch(
      /isolation {2}none .*\n.*warning.*not in a git repository.*git init/,
    );
    const run = await plain.run();
    expect(run.stdout).toMatch(/warning isolation: the workspace is not in a git repository/);
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    ws.catalog({ t: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
    ws.task('g/a', { files: ['src/a.js'] });
    const inGit = await runInProcess(ws, ['--dry-run', '--json']);
    expect(JSON.parse(inGit.stdout).isolation).toEqual({
      mode: 'worktree',
      worktrees: [],
      applyQueue: [],
      bytes: 0,
      sharedBytes: 0,
    });
  });
});
