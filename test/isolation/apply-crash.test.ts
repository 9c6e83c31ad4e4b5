import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI } from '../dispatcher/helpers.js';
import { git, gitWorkspace, sourceStatus, taskCommits } from './git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
// Fails on the source while the user's untracked `broken` flag is there and src/a.js is not
// "fixed"; passes in the (clean) worktree.
const check = `const fs=require('node:fs');const bad=fs.existsSync('broken')&&fs.readFileSync('src/a.js','utf8')!=='fixed\\n';process.exit(bad?1:0);`;

/** Runs `switchyard run` with the apply paused at `point`, SIGKILLs it there; resolves with the stderr seen. */
function runKilledAt(dir: string, catalog: string, point: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // The real node binary (process.execPath), never a shell shim: the signal reaches the dispatcher.
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--workspace', dir, '--execution-catalog', catalog, '--json'],
      {
        env: { ...process.env, NO_COLOR: '1', SWITCHYARD_APPLY_PAUSE_AT: point },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.includes(`switchyard-apply-paused ${point}\n`)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (_code, signal) =>
      signal === 'SIGKILL'
        ? resolve(stderr)
        : reject(new Error(`not paused at ${point}: ${stderr}`)),
    );
  });
}

/** `switchyard run` to the end, without a pause. */
function runToEnd(dir: string, catalog: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--workspace', dir, '--execution-catalog', catalog],
      { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

// Every step of the apply, and the two halves of moving the branch (ref moved, files not yet).
const PASSING = ['commit', 'rebase', 'advance', 'advance:ref', 'dod', 'verified'];
const ROLLING_BACK = ['rollback', 'rollback:ref', 'rolled-back'];

describe('a dispatcher SIGKILLed at each apply step recovers to a correct source', {
  timeout: 600_000,
}, () => {
  it.each([...PASSING, ...ROLLING_BACK])('killed at %s', async (point) => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n', 'check.cjs': check });
    const rollingBack = ROLLING_BACK.includes(point);
    if (rollingBack) writeFileSync(ws.path('broken'), 'user file\n');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', attempt: 1 },
              steps: [
                { write: { path: 'src/a.js', content: rollingBack ? 'v1\n' : 'fixed\n' } },
                { fillChecklist: true },
              ],
            },
          ],
          steps: [{ write: { path: 'src/a.js', content: 'fixed\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', {
      files: ['src/a.js'],
      done: { command: `${process.execPath} check.cjs`, assertion: 'exit code 0' },
    });
    await runKilledAt(ws.dir, ws.catalogFile, point);
    const result = await runToEnd(ws.dir, ws.catalogFile);
    expect(result.code, result.out).toBe(0);
    // Exactly one commit of the task on the source branch, with the final content; the
    // user's files untouched; nothing half-applied.
    const commits = taskCommits(ws);
    expect(commits.map((c) => c.task)).toEqual(['g/a']);
    expect(git(ws.dir, 'show', 'main:src/a.js')).toBe('fixed');
    expect(ws.read('src/a.js')).toBe('fixed\n');
    expect(sourceStatus(ws)).toBe(rollingBack ? '?? broken' : '');
    expect(ws.exists('agent-task/archive/g/a/complete.log')).toBe(true);
    expect(git(ws.dir, 'branch', '--list', 'switchyard/*')).toBe('');
  });
});
