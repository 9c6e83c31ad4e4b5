import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runInProcess } from '../engine/cli-in-process.js';

const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n' }],
};

/**
 * A workspace with one runnable task g/t, plus `outside/` beside it holding `victim` (a file)
 * and `dir/` (an empty folder). `setup` plants the hostile link; the run must refuse it.
 */
function hostileWorkspace(setup: (ws: Workspace, outside: string) => void) {
  const ws = new Workspace();
  ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
  ws.task('g/t', { files: ['src/t.ts'] });
  const outside = join(ws.dir, '..', `${ws.dir.split('/').at(-1)}-outside`);
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(join(outside, 'victim'), 'original\n');
  // Every folder the dispatcher owns exists before the link replaces one of them.
  mkdirSync(ws.path('agent-task/.switchyard/tasks/g'), { recursive: true });
  mkdirSync(ws.path('agent-task/.switchyard/claims'), { recursive: true });
  mkdirSync(ws.path('agent-task/.switchyard/attempts'), { recursive: true });
  mkdirSync(ws.path('agent-task/archive/g'), { recursive: true });
  setup(ws, outside);
  return { ws, outside };
}

/** Every file below `dir` with its size (the outside tree must not change). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out[p.slice(dir.length)] = readFileSync(p, 'utf8');
      else out[p.slice(dir.length)] = 'special';
    }
  };
  walk(dir);
  return out;
}

/** Replaces `rel` in the workspace by a symlink to `target` (moving a folder's content along). */
const linkTo = (ws: Workspace, rel: string, target: string) => {
  const path = ws.path(rel);
  try {
    if (statSync(path).isDirectory()) {
      execFileSync('cp', ['-a', `${path}/.`, target]);
      execFileSync('rm', ['-rf', path]);
    }
  } catch {}
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
};

const setups: Record<string, (ws: Workspace, outside: string) => void> = {
  'agent-task/g/WORK_LOG.md -> ../../../victim': (ws, o) =>
    linkTo(ws, 'agent-task/g/WORK_LOG.md', join(o, 'victim')),
  'agent-task/g/WORK_LOG.md hard-linked to victim': (ws, o) =>
    linkSync(join(o, 'victim'), ws.path('agent-task/g/WORK_LOG.md')),
  'agent-task/g/WORK_LOG.md is a FIFO': (ws) =>
    execFileSync('mkfifo', [ws.path('agent-task/g/WORK_LOG.md')]),
  'agent-task/g/t/complete.log -> victim': (ws, o) =>
    linkTo(ws, 'agent-task/g/t/complete.log', join(o, 'victim')),
  'agent-task/.switchyard/events.jsonl -> victim': (ws, o) =>
    linkTo(ws, 'agent-task/.switchyard/events.jsonl', join(o, 'victim')),
  'agent-task/.switchyard/dispatcher.lock -> victim': (ws, o) =>
    linkTo(ws, 'agent-task/.switchyard/dispatcher.lock', join(o, 'victim')),
  'agent-task/.switchyard -> outside dir': (ws, o) =>
    linkTo(ws, 'agent-task/.switchyard', join(o, 'dir')),
  'agent-task/.switchyard/tasks -> outside dir': (ws, o) =>
    linkTo(ws, 'agent-task/.switchyard/tasks', join(o, 'dir')),
  'agent-task/.switchyard/tasks/g -> outside dir': (ws, o) =>
    linkTo(ws, 'agent-task/.switchyard/tasks/g', join(o, 'dir')),
  'agent-task/.switchyard/claims -> outside dir': (ws, o) =>
    linkTo(ws, 'agent-task/.switchyard/claims', join(o, 'dir')),
  'agent-task/.switchyard/attempts -> outside dir': (ws, o) =>
    linkTo(ws, 'agent-task/.switchyard/attempts', join(o, 'dir')),
  'agent-task/archive -> outside dir': (ws, o) => linkTo(ws, 'agent-task/archive', join(o, 'dir')),
  'agent-task/archive/g -> outside dir': (ws, o) =>
    linkTo(ws, 'agent-task/archive/g', join(o, 'dir')),
  'agent-task -> outside dir': (ws, o) => linkTo(ws, 'agent-task', join(o, 'dir')),
  'agent-task/g (group) -> outside dir': (ws, o) => linkTo(ws, 'agent-task/g', join(o, 'dir')),
  'agent-task/g/t (task) -> outside dir': (ws, o) => linkTo(ws, 'agent-task/g/t', join(o, 'dir')),
};

describe('the dispatcher never writes through symlinks in its own files (16 setups)', {
  timeout: 120_000,
}, () => {
  for (const [name, setup] of Object.entries(setups))
    it(`${name}: exit 2, nothing written outside`, async () => {
      const { ws, outside } = hostileWorkspace(setup);
      const before = snapshot(outside);
      // `switchyard run` in this process (test/engine/cli-in-process.ts), but for the FIFO: if
      // its check ever failed, opening it would block this process instead of failing the test.
      const result = name.includes('FIFO') ? await ws.run() : await runInProcess(ws);
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stderr).toMatch(/SY_UNSAFE_PATH/);
      expect(snapshot(outside)).toEqual(before);
      expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('original\n');
    });

  it('a symlinked task folder is an error in run --dry-run too, never silently skipped', async () => {
    const { ws } = hostileWorkspace((w, o) => linkTo(w, 'agent-task/g/t', join(o, 'dir')));
    const result = await runInProcess(ws, ['--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toMatch(/agent-task\/g\/t is a symlink/);
  });

  it('the same workspace without the link runs to completion (the binary)', async () => {
    const { ws } = hostileWorkspace(() => undefined);
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    // State and evidence are owner-only.
    const state = ws.path('agent-task/.switchyard/tasks/g/t.json');
    expect(statSync(state).mode & 0o777).toBe(0o600);
  });
});
