import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Workspace, until as waitUntil } from '../dispatcher/helpers.js';

/** Runs git in `cwd` and returns its trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/**
 * A test workspace that is a git repository on branch `main`: the dispatcher's folders and
 * the test catalog are ignored, `files` are committed as the first commit.
 */
export function gitWorkspace(files: Record<string, string>): Workspace {
  const ws = new Workspace();
  writeFileSync(ws.path('.gitignore'), 'agent-task/\n.catalog.json\n.scenario-*\n');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(ws.path(path)), { recursive: true });
    writeFileSync(ws.path(path), content);
  }
  git(ws.dir, 'init', '-q', '-b', 'main');
  git(ws.dir, 'config', 'user.name', 'Test');
  git(ws.dir, 'config', 'user.email', 'test@example.com');
  git(ws.dir, 'add', '-A');
  git(ws.dir, 'commit', '-q', '-m', 'init');
  return ws;
}

/**
 * The root of a task's worktree as its isolation record says (outside the repository, under
 * the tests' `XDG_CACHE_HOME`), or undefined before the record exists.
 */
export function worktreeOf(ws: Workspace, taskId: string): string | undefined {
  const record = readIf(ws.path('agent-task/.switchyard/isolation/worktrees', `${taskId}.json`));
  return record ? (JSON.parse(record) as { path: string }).path : undefined;
}

/** A file of a task's worktree, or undefined before the worktree exists. */
export function worktreeFile(ws: Workspace, taskId: string, file: string): string | undefined {
  const root = worktreeOf(ws, taskId);
  return root ? join(root, file) : undefined;
}

/** Commits on `main` after the first, newest first: subject and the Switchyard-Task trailer. */
export function taskCommits(ws: Workspace): { sha: string; subject: string; task: string }[] {
  const out = git(
    ws.dir,
    'log',
    '--format=%H%x00%s%x00%(trailers:key=Switchyard-Task,valueonly,separator=)%x00',
    'main',
  );
  return out
    .split('\0\n')
    .map((l) => l.replace(/\0$/, '').split('\0'))
    .filter((p) => p[1] !== 'init')
    .map(([sha = '', subject = '', task = '']) => ({ sha, subject, task: task.trim() }));
}

/** `git status --porcelain` of the source (the user's checkout). */
export function sourceStatus(ws: Workspace): string {
  return git(ws.dir, 'status', '--porcelain');
}

/** Resolves once `test` holds; bounded only by the test's time-out (see `until` in helpers). */
export const until = (test: () => boolean, what: string): Promise<void> => waitUntil(test, what);

/** The content of a file, or undefined. */
export function readIf(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** The prompt of every attempt of `role` for `task`, oldest first. */
export function prompts(ws: Workspace, task: string, role: string): string[] {
  const events = ws
    .events()
    .filter((e) => e.type === 'attempt.started' && e.task === task && e.role === role);
  return events.map((e) => readFileSync(join(String(e.attemptDir), 'prompt.md'), 'utf8'));
}
