import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriteSetResolver } from './write-set-path.js';

let root: string;
let ws: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sy-ws-'));
  ws = join(root, 'repo');
  outside = join(root, 'outside');
  mkdirSync(join(ws, 'src', 'app'), { recursive: true });
  mkdirSync(join(ws, '.git'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'src', 'app', 'main.ts'), '');
  writeFileSync(join(outside, 'secret.ts'), '');
  mkdirSync(join(ws, 'app'), { recursive: true });
  writeFileSync(join(ws, 'app', '[id].tsx'), '');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const check = (entry: string) => new WriteSetResolver(ws).check(entry);

describe('WriteSetResolver refusals', () => {
  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['/etc/passwd', /absolute/],
    ['C:/x.ts', /absolute/],
    ['~/x.ts', /absolute/],
    ['../outside/secret.ts', /escapes/],
    ['src/../../outside/secret.ts', /escapes/],
    ['src/**/*.ts', /glob/],
    ['src/app/*.ts', /glob/],
    ['src/{a,b}.ts', /glob/],
    ['src/app/', /directory \(trailing slash\)/],
    ['src/app', /is a directory/],
    ['.', /workspace root/],
    ['src/..', /workspace root/],
    ['.git/config', /under \.git/],
    ['agent-task/g/t/PLAN.md', /under agent-task/],
    ['src\\app\\main.ts', /backslashes/],
    ['src/app/main.ts/x.ts', /parent .* is a file/],
  ])('refuses %j', (entry, message) => {
    const result = check(entry);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(message);
      expect(result.hint.length).toBeGreaterThan(0);
    }
  });

  it('refuses a file symlink whose real path leaves the workspace', () => {
    symlinkSync(join(outside, 'secret.ts'), join(ws, 'src', 'link.ts'));
    const result = check('src/link.ts');
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/outside the workspace/),
    });
  });

  it('refuses a path under a directory symlink that escapes, even for a new file', () => {
    symlinkSync(outside, join(ws, 'vendor'));
    expect(check('vendor/new-file.ts')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/outside the workspace/),
    });
    expect(check('vendor/secret.ts')).toMatchObject({ ok: false });
  });

  it('refuses a dangling symlink pointing outside', () => {
    symlinkSync(join(outside, 'missing.ts'), join(ws, 'src', 'dangling.ts'));
    expect(check('src/dangling.ts')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/outside/),
    });
  });

  it('refuses a symlink into .git', () => {
    symlinkSync(join(ws, '.git'), join(ws, 'gitdir'));
    expect(check('gitdir/config')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/\.git/),
    });
  });
});

describe('WriteSetResolver accepts', () => {
  it('existing and new files, normalized, case as written', () => {
    expect(check('src/app/main.ts')).toEqual({ ok: true, path: 'src/app/main.ts' });
    expect(check('./src//app/./Main.TS')).toEqual({ ok: true, path: 'src/app/Main.TS' });
    expect(check('src/new/dir/file.ts')).toEqual({ ok: true, path: 'src/new/dir/file.ts' });
    expect(check('README.md')).toEqual({ ok: true, path: 'README.md' });
  });

  it('an existing file whose name looks like a glob', () => {
    expect(check('app/[id].tsx')).toEqual({ ok: true, path: 'app/[id].tsx' });
    expect(check('app/[slug].tsx')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/glob/),
    });
  });

  it('a symlink inside the workspace, reporting where it resolves', () => {
    symlinkSync(join(ws, 'src', 'app'), join(ws, 'alias'));
    expect(check('alias/main.ts')).toEqual({
      ok: true,
      path: 'alias/main.ts',
      resolved: 'src/app/main.ts',
    });
  });

  it('works when the workspace path itself goes through a symlink', () => {
    const link = join(root, 'ws-link');
    symlinkSync(ws, link);
    const resolver = new WriteSetResolver(link);
    expect(resolver.workspaceReal).toBe(realpathSync(ws));
    expect(resolver.check('src/app/main.ts')).toEqual({ ok: true, path: 'src/app/main.ts' });
  });
});

describe('write sets: nested repositories and control characters', () => {
  it('refuses any .git folder or gitlink, not only the workspace root one', () => {
    mkdirSync(join(ws, 'vendor', 'lib', '.git', 'hooks'), { recursive: true });
    writeFileSync(join(ws, 'vendor', 'lib', '.git', 'config'), '');
    for (const entry of [
      'vendor/lib/.git/config',
      'vendor/lib/.git/hooks/pre-commit',
      'vendor/lib/.GIT/hooks/post-checkout',
      'sub/.git',
    ]) {
      const result = check(entry);
      expect(result.ok, entry).toBe(false);
      if (!result.ok) expect(result.message).toMatch(/\.git\/$/i);
    }
    expect(check('src/.gitignore').ok).toBe(true);
    expect(check('.github/workflows/ci.yml').ok).toBe(true);
  });

  it('refuses a NUL byte or another control character instead of cutting the path', () => {
    for (const entry of ['src/a\u0000b.ts', 'src/a.ts\u0000.md', 'src/a\tb.ts', 'src/a\rb.ts']) {
      const result = check(entry);
      expect(result.ok, JSON.stringify(entry)).toBe(false);
      if (!result.ok) expect(result.message).toMatch(/control character/);
    }
  });
});
