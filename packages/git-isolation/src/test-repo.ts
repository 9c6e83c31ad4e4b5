import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Test helper: runs git synchronously in `cwd` and returns its trimmed stdout. */
export function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** Test helper: writes a file (creating folders). */
export function put(root: string, file: string, content: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), content);
}

export const read = (root: string, file: string): string => readFileSync(join(root, file), 'utf8');

/** Test helper: a real git repository on branch main with `files` committed. */
export function makeRepo(files: Record<string, string> = { 'README.md': '# demo\n' }): string {
  const root = mkdtempSync(join(tmpdir(), 'sy-iso-'));
  sh(root, 'init', '-q', '-b', 'main');
  sh(root, 'config', 'user.name', 'Test User');
  sh(root, 'config', 'user.email', 'test@example.com');
  sh(root, 'config', 'commit.gpgsign', 'false');
  for (const [file, content] of Object.entries(files)) put(root, file, content);
  sh(root, 'add', '-A');
  sh(root, 'commit', '-q', '-m', 'initial');
  return root;
}

/** `git status --porcelain` of the source checkout ('' = clean). */
export const status = (root: string): string =>
  sh(root, 'status', '--porcelain', '--untracked-files=all');
