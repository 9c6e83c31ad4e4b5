// A hostile agent under `sandbox: { mode: "bwrap" }`, through the real CLI and dispatcher with
// worktree isolation: it makes its write-set change and tries every write a prompt cannot
// forbid (HOME, the source by absolute path, next to its worktree through `..`, another task's
// worktree, /var/tmp, /dev/shm, the repository's .git and hooks, its worktree's .git file, the
// other task's folder, a symlink and a hard link pointing out, a setuid bit, reading ~/.ssh). Only its
// write-set change lands; nothing exists outside afterwards; the other task is unharmed.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAKE_AGENT } from '../dispatcher/helpers.js';
import { git, gitWorkspace, sourceStatus, taskCommits } from '../isolation/git-workspace.js';

const HOSTILE = join(dirname(fileURLToPath(import.meta.url)), 'hostile-agent.mjs');
const ROUTES = ['local', 'cloud'].flatMap((k) =>
  Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
);

interface Attack {
  attack: string;
  ok: boolean;
  error?: string;
}

/** The attacks the hostile worker's first attempt printed (its transcript, kept after archive). */
function attacksOf(attemptDir: string): Attack[] {
  return readFileSync(join(attemptDir, 'normalized-output.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Attack);
}

describe('a hostile agent in the bubblewrap sandbox', { timeout: 120_000 }, () => {
  it('lands only its write-set change and leaves nothing outside', async () => {
    const ws = gitWorkspace({ 'README.md': 'readme\n', 'src/keep.txt': 'keep\n' });
    const tag = `${process.pid}-${Date.now()}`;
    const home = mkdtempSync(join(tmpdir(), 'sy-sandbox-home-'));
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE KEY\n');
    const cache = mkdtempSync(join(tmpdir(), 'sy-sandbox-cache-'));
    // the fake agent keeps its state next to its scenario: a folder the config makes writable
    const scenarioDir = mkdtempSync(join(tmpdir(), 'sy-sandbox-scenario-'));
    const scenario = join(scenarioDir, 'other.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        format: 'claude-code',
        cases: [
          { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
          {
            when: { role: 'worker' },
            steps: [
              { write: { path: 'src/b.txt', content: 'b\n' } },
              { waitFor: ws.path('agent-task/g/hostile/attacks-done') },
              { fillChecklist: true },
            ],
          },
        ],
      }),
    );
    const targets = {
      hostile: {
        agent: 'hostile-agent',
        model: 'none',
        execution_class: 'local_model',
        runtime: {
          command: [process.execPath, HOSTILE],
          output_format: 'text',
          environment: { HOSTILE_SOURCE: ws.dir, HOSTILE_OTHER: 'g/other', HOSTILE_TAG: tag },
        },
      },
      fake: {
        agent: 'claude-code',
        model: 'fake',
        execution_class: 'local_model',
        runtime: {
          command: [process.execPath, FAKE_AGENT, '--scenario', scenario, '{prompt}'],
          output_format: 'jsonl',
        },
      },
    };
    const routes = Object.fromEntries(ROUTES.map((r) => [r, { candidates: ['fake'] }]));
    writeFileSync(
      ws.catalogFile,
      JSON.stringify({ schema_version: 1, targets, routes: { worker: routes, review: routes } }),
    );
    ws.task('g/hostile', { files: ['src/a.txt'], target: 'hostile' });
    ws.task('g/other', { files: ['src/b.txt'] });
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      sandbox: { mode: 'bwrap', writable: [scenarioDir] },
      maxParallel: 2,
    });
    git(ws.dir, 'commit', '-qam', 'sandbox config');

    const result = await ws.run([], { env: { HOME: home, XDG_CACHE_HOME: cache } });
    expect(result.code, result.stdout + result.stderr).toBe(0);

    // what landed: one commit per task, each only its write-set file, no setuid bit
    const commits = taskCommits(ws).filter((c) => c.task !== '');
    expect(commits.map((c) => c.task).sort()).toEqual(['g/hostile', 'g/other']);
    const hostile = commits.find((c) => c.task === 'g/hostile')!;
    expect(git(ws.dir, 'show', '--name-only', '--format=', hostile.sha)).toBe('src/a.txt');
    expect(git(ws.dir, 'ls-tree', 'HEAD', 'src/a.txt')).toMatch(/^100644 blob /);
    expect(ws.read('src/a.txt')).toBe('the change\n');
    expect(statSync(ws.path('src/a.txt')).mode & 0o7000).toBe(0);
    expect(ws.read('src/b.txt')).toBe('b\n');
    expect(sourceStatus(ws)).toBe('');

    // what the hostile worker's first attempt got: its own change, nothing else
    const first = ws
      .events()
      .find((e) => e.type === 'attempt.started' && e.task === 'g/hostile' && e.role === 'worker');
    expect(first?.sandbox).toBe('bwrap');
    const outcome = Object.fromEntries(
      attacksOf(String(first?.attemptDir)).map((a) => [a.attack, a.ok ? 'ok' : a.error]),
    );
    expect(outcome).toEqual({
      'write-set': 'ok',
      setuid: 'ok', // on its own file, in its worktree: git keeps no setuid bit
      home: 'EROFS',
      'source-absolute': 'EROFS',
      'next-to-worktree': 'EROFS',
      'var-tmp': 'EROFS',
      'dev-shm': 'ok', // the sandbox's own /dev: gone with it
      'git-dir': 'EROFS',
      'git-hook': 'EROFS',
      'worktree-git-file': 'EROFS',
      'other-task-folder': 'EROFS',
      'other-worktree': 'EROFS',
      'symlink-out': 'ok', // a link in its worktree: outside the write set, corrected
      'write-through-symlink': 'EROFS',
      'hardlink-out': 'EXDEV',
      'read-ssh-key': 'EMPTY',
    });

    // nothing outside: HOME, the source, next to the worktrees, /var/tmp, /dev/shm, .git
    const named = `hostile-${tag}`;
    // (.claude: the folder the other target's agent plugin declares, made for it, left empty)
    expect(readdirSync(home).sort()).toEqual(['.claude', '.ssh']);
    expect(readdirSync(join(home, '.claude'))).toEqual([]);
    expect(readdirSync(join(home, '.ssh'))).toEqual(['id_test']);
    expect(readdirSync(ws.dir).filter((f) => f.includes(tag))).toEqual([]);
    expect(existsSync(`/var/tmp/${named}.txt`)).toBe(false);
    expect(existsSync(`/dev/shm/${named}.txt`)).toBe(false);
    expect(existsSync(ws.path('.git', named))).toBe(false);
    expect(existsSync(ws.path('.git', 'hooks', 'post-commit'))).toBe(false);
    expect(ws.read('agent-task/archive/g/other/complete.log')).not.toContain(tag);
    const found = execFileSync('find', [ws.dir, cache, '-name', `*${tag}*`], { encoding: 'utf8' });
    expect(found.trim()).toBe('');
    // the correction named the files outside the write set; the second attempt took them back
    const hostileEvents = ws.events().filter((e) => e.task === 'g/hostile');
    expect(JSON.stringify(hostileEvents)).toContain('src/link-out');
  });
});
