import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../dispatcher/helpers.js';
import { cli, runInProcess } from '../engine/cli-in-process.js';
import {
  git,
  gitWorkspace,
  sourceStatus,
  taskCommits,
  until,
  worktreeOf,
} from './git-workspace.js';

const node = process.execPath;
const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

// The project's check: its dependency (installed by the set-up) and its ignored `.env` (copied).
const CHECK = `const greet = require('greet');
const env = require('node:fs').readFileSync('.env', 'utf8').trim();
console.log(greet(env.split('=')[1]));
`;
// The set-up's own check: g/b's fails until the user drops `.allow-b` in the source; g/a's
// waits for the test to have seen it "setting up".
const SETUP_CHECK = `const { existsSync } = require('node:fs');
const { join } = require('node:path');
const source = process.env.SWITCHYARD_SOURCE_WORKSPACE;
if (process.env.SWITCHYARD_TASK === 'g/b' && !existsSync(join(source, '.allow-b'))) {
  console.error('setup-check: g/b needs .allow-b in the source workspace');
  process.exit(4);
}
const go = join(source, '.scenario-setup-go');
const wait = () => (existsSync(go) ? console.log('setup-check: ok') : setTimeout(wait, 50));
wait();
`;

/** A JavaScript project with one dependency from a tarball of its own (npm, no registry). */
function npmProject() {
  const ws = gitWorkspace({
    '.gitignore': 'agent-task/\n.catalog.json\n.scenario-*\n.allow-b\nnode_modules/\n.env\n',
    'check.cjs': CHECK,
    'setup-check.cjs': SETUP_CHECK,
    'vendor/greet/package.json': '{"name":"greet","version":"1.0.0","main":"index.js"}\n',
    'vendor/greet/index.js': 'module.exports = (who) => `hello ${who} from greet`;\n',
  });
  const npm = (...args: string[]) =>
    execFileSync('npm', args, { cwd: ws.dir, stdio: 'pipe', env: npmEnv(ws.dir) });
  npm('pack', './vendor/greet', '--pack-destination', 'vendor', '--silent');
  writeFileSync(
    ws.path('package.json'),
    '{"name":"app","private":true,"dependencies":{"greet":"file:vendor/greet-1.0.0.tgz"}}\n',
  );
  npm('install', '--package-lock-only', '--offline', '--no-audit', '--no-fund');
  git(ws.dir, 'add', '-A');
  git(ws.dir, 'commit', '-qm', 'app');
  // The user's checkout: installed, with its local settings.
  npm('ci', '--offline', '--no-audit', '--no-fund');
  writeFileSync(ws.path('.env'), 'WHO=world\n');
  return ws;
}

/** npm's cache in the test's own folder (a shared store: every worktree installs from it). */
const npmEnv = (dir: string) => ({
  ...process.env,
  npm_config_cache: join(dir, '..', `${dir.split('/').pop()}-npm-cache`),
});

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('a new worktree is set up before its first agent (real git, real npm, fake agents)', {
  timeout: 240_000,
}, () => {
  it('copies ignored files, runs the set-up (status says "setting up"), a failing set-up blocks with its output and retry runs it again', async () => {
    const ws = npmProject();
    const isolation = {
      setup: [
        ['npm', 'ci', '--offline', '--no-audit', '--no-fund'],
        [node, 'setup-check.cjs'],
      ],
      copy: ['.env', 'config/local.*'],
    };
    ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, isolation });
    git(ws.dir, 'commit', '-qam', 'config');
    const done = {
      command: `${node} check.cjs`,
      assertion: 'stdout contains "hello world from greet"',
    };
    const writes = (path: string) => [
      { write: { path, content: 'done\n' } },
      { fillChecklist: true },
    ];
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            { when: { role: 'worker', task: 'g/b' }, steps: writes('src/b.js') },
            { when: { role: 'worker', task: 'g/c' }, steps: writes('src/c.js') },
          ],
          steps: writes('src/out.js'),
        },
      },
    });
    ws.task('g/a', { files: ['src/out.js'], done });
    ws.task('g/b', { files: ['src/b.js'], done });
    const env = npmEnv(ws.dir) as Record<string, string>;
    const running = ws.run(['--max-parallel', '2'], { env });
    await until(
      () =>
        ws
          .events()
          .some((e) => e.type === 'task.isolation' && e.task === 'g/a' && e.step === 'setup'),
      'g/a to start its set-up',
    );
    let status = '';
    await until(() => {
      status = execFileSync(node, [CLI, 'status', '--workspace', ws.dir], {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      return /setting up its worktree: \S+ setup-check\.cjs \(2 of 2\)/.test(status);
    }, 'status to show g/a setting up');
    expect(status).toMatch(/^ {2}g\/a +setting up its worktree: /m);
    writeFileSync(ws.path('.scenario-setup-go'), 'go');
    const first = await running;
    expect(first.code, first.stdout + first.stderr).toBe(3);
    // g/a: its definition of done needed the installed dependency and the copied .env, in its
    // worktree (outside the repository: nothing to find by walking up) and on the source.
    const gates = ws.events().filter((e) => e.type === 'gate.finished');
    expect(gates.map((e) => [e.task, e.passed, /^on the source/.test(String(e.detail))])).toEqual([
      ['g/a', true, false],
      ['g/a', true, true],
    ]);
    const [commit] = taskCommits(ws).filter((c) => c.task === 'g/a');
    expect(git(ws.dir, 'show', '--name-only', '--format=', commit!.sha)).toBe('src/out.js');
    const log = ws.read('agent-task/g/WORK_LOG.md');
    expect(log).toMatch(/\| START \| g\/a\/setup: 2 command\(s\) \| 1 of \d+ \| setup \|/);
    expect(log).toMatch(
      /\| FINISH \| g\/a\/setup: 2 command\(s\) \| 1 of \d+ \| setup \| 1 \| .*setup-check\.cjs \| success \|/,
    );
    // g/b: blocked at its set-up with the command, its exit and its output; no agent was paid.
    const blocked = ws.events().find((e) => e.type === 'task.blocked' && e.task === 'g/b')!;
    expect(blocked.stage).toBe('setup');
    expect(blocked.reason).toMatch(/the worktree set-up failed: \S+ setup-check\.cjs exited 4/);
    expect(blocked.evidence).toContain('setup-check: g/b needs .allow-b in the source workspace');
    expect(ws.events().some((e) => e.type === 'attempt.started' && e.task === 'g/b')).toBe(false);
    // Its worktree is kept as evidence, outside the repository, set up as far as it went.
    const kept = worktreeOf(ws, 'g/b')!;
    expect(kept.startsWith(ws.dir)).toBe(false);
    expect(existsSync(join(kept, 'node_modules/greet/index.js'))).toBe(true);
    expect(readFileSync(join(kept, '.env'), 'utf8')).toBe('WHO=world\n');
    const shown = await cli(['status', '--workspace', ws.dir]);
    expect(shown.stdout).toMatch(/g\/b +\[setup\] the worktree set-up failed/);
    expect(shown.stdout).toMatch(/g\/b +blocked +switchyard\/g\/b/);
    expect(sourceStatus(ws)).toBe('');

    // A disk cap the kept worktree fills: a new task waits (status says why) instead of
    // starting a worktree; clean --blocked says what it freed, and the run goes on.
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      isolation: { ...isolation, maxDiskBytes: 1 },
    });
    ws.task('g/c', { files: ['src/c.js'] });
    git(ws.dir, 'commit', '-qam', 'disk cap');
    const capped = await runInProcess(ws, [], { env });
    expect(capped.code, capped.stdout + capped.stderr).toBe(3);
    expect(
      ws
        .events()
        .filter((e) => e.type === 'admission.held')
        .map((e) => [e.rule, e.held]),
    ).toEqual([['worktree-disk', 1]]);
    expect(ws.events().some((e) => e.type === 'task.admitted' && e.task === 'g/c')).toBe(false);
    const waiting = await cli(['status', '--workspace', ws.dir]);
    expect(waiting.stdout).toMatch(
      /g\/c +waits for worktree disk: the task worktrees take \d.* of the 1 B cap \(isolation\.maxDiskBytes\)/,
    );
    expect(waiting.stdout).toMatch(
      /isolation {2}a git worktree per task · 1 worktree\(s\), .* of the 1 B cap/,
    );
    const cleaned = await cli(['clean', '--blocked', '--workspace', ws.dir]);
    expect(cleaned.stdout).toMatch(/^removed g\/b \(blocked\) .* (\d+\.\d) (KiB|MiB)$/m);
    expect(cleaned.stdout).toMatch(/^1 removed, 0 kept, \d+\.\d (KiB|MiB) freed$/m);
    expect(existsSync(kept)).toBe(false);

    writeFileSync(ws.path('.allow-b'), 'yes\n');
    const retried = await cli(
      ['retry', 'g/b', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile],
      { env },
    );
    expect(retried.code, retried.stdout + retried.stderr).toBe(0);
    const setups = ws.events().filter((e) => e.task === 'g/b' && e.type === 'task.isolation');
    expect(setups.map((e) => e.step).filter((s) => String(s).startsWith('setup'))).toEqual([
      'setup',
      'setup-failed',
      'setup',
      'setup-passed',
    ]);
    expect(taskCommits(ws).map((c) => c.task)).toEqual(expect.arrayContaining(['g/b', 'g/c']));
    expect(sourceStatus(ws)).toBe('');
  });
});
