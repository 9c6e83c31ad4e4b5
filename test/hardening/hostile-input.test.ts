// The environment and the inputs a user or an agent controls, through the real CLI: a
// read-only or full state folder and a planted complete.log symlink are coded errors that say
// where and what to do (never "This is a bug"); command-line write-set paths resolve against
// --workspace from any folder.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { agentWorkspace, CLI, runCli } from '../dispatcher/helpers.js';
import { runEngine } from '../engine/harness.js';

const BWRAP = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));

/** Runs the CLI inside bubblewrap with extra mount arguments (the rest of / as it is). */
function cliUnder(mounts: string[], args: string[], cwd: string) {
  return spawnSync(
    BWRAP!,
    [
      '--bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      ...mounts,
      process.execPath,
      CLI,
      ...args,
    ],
    { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
  );
}

describe('hostile inputs to a run (in process)', { timeout: 60_000 }, () => {
  it('a complete.log symlink an agent plants in the archive is refused with coded errors', async () => {
    const ws = agentWorkspace({
      cases: [
        {
          when: { role: 'worker' },
          steps: [
            { write: { path: 'started.flag', content: 'x' } },
            { waitFor: 'go.flag' },
            { fillChecklist: true },
          ],
        },
      ],
    });
    ws.task('g/t', { files: ['src/t.ts'] });
    const target = join(mkdtempSync(join(tmpdir(), 'sy-victim-')), 'victim.txt');
    writeFileSync(target, 'outside\n');
    const run = runEngine(ws);
    while (!ws.exists('started.flag')) await new Promise((r) => setTimeout(r, 25));
    mkdirSync(ws.path('agent-task', 'archive', 'g', 't'), { recursive: true });
    symlinkSync(target, ws.path('agent-task', 'archive', 'g', 't', 'complete.log'));
    writeFileSync(ws.path('go.flag'), 'x');
    const result = await run;
    expect(result.code, result.stdout).toBe(3);
    expect(result.stdout).toMatch(/blocked +g\/t \[archive\] cannot archive: .*already exists/);
    // The next run refuses the planted link by name; nothing followed it.
    const again = await runEngine(ws);
    expect(again.code, again.stdout).toBe(2);
    expect(again.stdout).toMatch(/SY_UNSAFE_PATH .*archive\/g\/t\/complete\.log.* is a symlink/);
    // Coded errors only: the CLI says "This is a bug" for an error without a code.
    expect(result.error).toBeUndefined();
    expect(SwitchyardError.is(again.error)).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('outside\n');
  });
});

describe('hostile environment and inputs through the CLI', { timeout: 240_000 }, () => {
  it('task new --workspace from another folder writes the workspace path', async () => {
    const ws = agentWorkspace();
    const elsewhere = mkdtempSync(join(tmpdir(), 'sy-elsewhere-'));
    const result = await runCli(
      ['task', 'new', 'api/x', '--files', 'src/x.js', '--workspace', ws.dir],
      { cwd: elsewhere },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(ws.read('agent-task', 'api', 'x', 'PLAN.md')).toContain('\n- src/x.js\n');
  });

  it.skipIf(!BWRAP)(
    'a read-only or full state folder is SY_ENVIRONMENT with the path and the fix, also in --json',
    () => {
      const ws = agentWorkspace();
      ws.task('g/t', { files: ['src/t.ts'] });
      const state = ws.path('agent-task', '.switchyard');
      mkdirSync(state, { recursive: true });
      const run = ['run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile];

      const readOnly = cliUnder(['--ro-bind', state, state], [...run, '--json'], ws.dir);
      expect(readOnly.status, readOnly.stderr).toBe(1);
      expect(readOnly.stderr).toMatch(
        /SY_ENVIRONMENT .*agent-task\/\.switchyard.*read-only \(EROFS\)/,
      );
      expect(readOnly.stderr).toMatch(/hint: run switchyard where/);
      expect(readOnly.stderr).not.toMatch(/This is a bug/);
      const line = JSON.parse(readOnly.stdout.trim().split('\n').at(-1) ?? '{}');
      expect(line).toMatchObject({ type: 'error', exitCode: 1, code: 'SY_ENVIRONMENT' });
      expect(line.file).toContain(state);

      // A tmpfs of 64 KiB, filled up before the run.
      const filled = spawnSync(
        BWRAP!,
        [
          '--bind',
          '/',
          '/',
          '--dev',
          '/dev',
          '--proc',
          '/proc',
          '--size',
          '65536',
          '--tmpfs',
          state,
          '/bin/sh',
          '-c',
          `head -c 65536 /dev/zero > ${state}/fill 2>/dev/null; exec "$@"`,
          'sh',
          process.execPath,
          CLI,
          ...run,
        ],
        { cwd: ws.dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
      );
      expect(filled.status, filled.stderr).toBe(1);
      expect(filled.stderr).toMatch(/SY_ENVIRONMENT .*the disk is full \(ENOSPC\)/);
      expect(filled.stderr).toMatch(/hint: free disk space/);
      expect(filled.stderr).not.toMatch(/This is a bug/);
    },
  );
});
