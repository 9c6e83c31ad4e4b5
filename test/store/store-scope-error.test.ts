import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../dispatcher/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'sy-store-scope-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The scope is checked before anything connects: a folder that is no clone is refused with
// the store named, and a password in the URL (a raw `/` in it, or `?password=`) never shows.
it('SY_STORE_SCOPE names the store without its password', { timeout: 60_000 }, async () => {
  mkdirSync(join(dir, 'agent-task'));
  const run = await runCli([
    'run',
    '--workspace',
    dir,
    '--json',
    '--store',
    'postgres://sy:Zm9v/YmFy@127.0.0.1:1/x?password=S3cret',
  ]);
  expect(run.code, run.stderr).toBe(2);
  const error = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  expect(error).toMatchObject({ code: 'SY_STORE_SCOPE' });
  expect(error.message).toContain('postgres://sy@127.0.0.1:1/x');
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/Zm9v|YmFy|S3cret/);
});
