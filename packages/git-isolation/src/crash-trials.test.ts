import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openFsStore } from '@switchyard/store-fs';
import { describe, expect, it } from 'vitest';
import { openGitIsolation } from './git-isolation.js';
import { makeRepo, put, read, sh, status } from './test-repo.js';

const CHILD = fileURLToPath(new URL('../fixtures/apply-child.mjs', import.meta.url));

/** A small seeded generator (mulberry32): each trial's repository is reproducible from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Check = 'pass' | 'fail' | 'kill-self';
interface Trial {
  point: string | undefined;
  check: Check;
  /** What recovery must leave: the task applied and verified, or the source untouched. */
  expect: 'applied' | 'untouched';
  /** The source branch had moved to the task's commit when the process died. */
  moved: boolean;
  outcome: 'completed' | 'rolled-back' | 'discarded';
}

const TRIALS: Trial[] = [
  { point: 'commit', check: 'pass', expect: 'untouched', moved: false, outcome: 'discarded' },
  { point: 'rebase', check: 'pass', expect: 'untouched', moved: false, outcome: 'discarded' },
  { point: 'advance', check: 'pass', expect: 'untouched', moved: false, outcome: 'rolled-back' },
  { point: 'advance:ref', check: 'pass', expect: 'untouched', moved: true, outcome: 'rolled-back' },
  { point: 'dod', check: 'pass', expect: 'untouched', moved: true, outcome: 'rolled-back' },
  {
    point: undefined,
    check: 'kill-self',
    expect: 'untouched',
    moved: true,
    outcome: 'rolled-back',
  },
  { point: 'verified', check: 'pass', expect: 'applied', moved: true, outcome: 'completed' },
  { point: 'rollback', check: 'fail', expect: 'untouched', moved: true, outcome: 'rolled-back' },
  {
    point: 'rollback:ref',
    check: 'fail',
    expect: 'untouched',
    moved: false,
    outcome: 'rolled-back',
  },
  {
    point: 'rolled-back',
    check: 'fail',
    expect: 'untouched',
    moved: false,
    outcome: 'rolled-back',
  },
];

/** Runs the child until it pauses at `point` (or dies by itself), then SIGKILLs it. */
function runAndKill(
  args: string[],
  point: string | undefined,
): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...(point ? { SWITCHYARD_APPLY_PAUSE_AT: point } : {}) },
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (point && stderr.includes(`switchyard-apply-paused ${point}\n`)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`the apply was not killed (exit ${code}): ${stdout}${stderr}`));
      else resolve(signal);
    });
  });
}

describe('crash trials: SIGKILL at every apply step, then recover', () => {
  TRIALS.forEach((trial, index) => {
    const seed = 1000 + index;
    it(`seed ${seed}: killed at ${trial.point ?? 'inside the source DoD'} → ${trial.expect}`, async () => {
      const next = random(seed);
      const files: Record<string, string> = { 'notes.md': 'notes\n' };
      const count = 3 + Math.floor(next() * 4);
      for (let i = 0; i < count; i++) files[`src/f${i}.js`] = `f${i} v1\n`;
      const root = makeRepo(files);
      const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
      if (!isolation) throw new Error('no repository');
      const wt = await isolation.ensureWorktree('g/t');
      // the task: modify one file, add one, delete one (chosen by the seed)
      const names = Object.keys(files).filter((f) => f.startsWith('src/'));
      const modified = names[Math.floor(next() * names.length)] as string;
      const deleted = names.find((f) => f !== modified) as string;
      const added = `src/new-${seed}.js`;
      put(wt.workdir, modified, `${modified} by the task\n`);
      put(wt.workdir, added, 'added by the task\n');
      await rm(join(wt.workdir, deleted));
      // meanwhile the source moves on (another file) and the user has uncommitted notes
      const other = names.find((f) => f !== modified && f !== deleted) as string;
      put(root, other, `${other} by the user\n`);
      sh(root, 'commit', '-q', '-am', 'user commit');
      put(root, 'notes.md', 'uncommitted user notes\n');
      const tip = sh(root, 'rev-parse', 'HEAD');
      const writeSet = [modified, added, deleted];

      await runAndKill([root, 'g/t', JSON.stringify(writeSet), trial.check], trial.point);
      expect(sh(root, 'rev-parse', 'HEAD') !== tip).toBe(trial.moved);
      const recovered = await isolation.recover();
      expect(recovered.map((r) => r.outcome)).toEqual([trial.outcome]);

      const head = sh(root, 'rev-parse', 'HEAD');
      expect(status(root)).toBe('M notes.md');
      expect(read(root, 'notes.md')).toBe('uncommitted user notes\n');
      expect(read(root, other)).toBe(`${other} by the user\n`);
      expect(existsSync(join(root, '.git', 'index.lock'))).toBe(false);
      expect(existsSync(join(root, 'agent-task/.switchyard/isolation/apply/g/t.json'))).toBe(false);
      if (trial.expect === 'applied') {
        expect(sh(root, 'rev-parse', 'HEAD^')).toBe(tip);
        expect(read(root, modified)).toBe(`${modified} by the task\n`);
        expect(existsSync(join(root, deleted))).toBe(false);
        expect(
          (await isolation.apply({ taskId: 'g/t', title: 'x', targets: [], attempts: 1, writeSet }))
            .status,
        ).toBe('applied');
        return;
      }
      expect(head).toBe(tip);
      expect(read(root, modified)).toBe(files[modified]);
      expect(read(root, deleted)).toBe(files[deleted]);
      expect(existsSync(join(root, added))).toBe(false);
      // the task is still approved: applying again lands it cleanly
      const again = await isolation.apply({
        taskId: 'g/t',
        title: 'again',
        targets: [],
        attempts: 1,
        writeSet,
      });
      expect(again.status).toBe('applied');
      expect(sh(root, 'rev-parse', 'HEAD^')).toBe(tip);
      expect(status(root)).toBe('M notes.md');
      expect(read(root, added)).toBe('added by the task\n');
    });
  });
});

describe('crash trials: apply itself recovers its own interrupted apply', () => {
  it('killed after verification, applied again without recover(): one commit, not two', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
    if (!isolation) throw new Error('no repository');
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a by the task\n');
    const tip = sh(root, 'rev-parse', 'HEAD');
    await runAndKill([root, 'g/t', '["src/a.js"]', 'pass'], 'verified');
    const result = await isolation.apply({
      taskId: 'g/t',
      title: 'x',
      targets: [],
      attempts: 1,
      writeSet: ['src/a.js'],
    });
    expect(result).toMatchObject({ status: 'applied', sourceTip: tip, files: ['src/a.js'] });
    expect(sh(root, 'rev-parse', 'HEAD^')).toBe(tip);
    expect(status(root)).toBe('');
  });

  it('killed after moving the branch, applied again without recover(): rolled back, then applied once', async () => {
    const root = makeRepo({ 'src/a.js': 'a\n' });
    const isolation = await openGitIsolation(root, { store: openFsStore({ workspace: root }) });
    if (!isolation) throw new Error('no repository');
    const wt = await isolation.ensureWorktree('g/t');
    put(wt.workdir, 'src/a.js', 'a by the task\n');
    const tip = sh(root, 'rev-parse', 'HEAD');
    await runAndKill([root, 'g/t', '["src/a.js"]', 'pass'], 'advance:ref');
    const result = await isolation.apply({
      taskId: 'g/t',
      title: 'x',
      targets: [],
      attempts: 1,
      writeSet: ['src/a.js'],
    });
    expect(result).toMatchObject({ status: 'applied', sourceTip: tip });
    expect(sh(root, 'rev-parse', 'HEAD^')).toBe(tip);
    expect(read(root, 'src/a.js')).toBe('a by the task\n');
    expect(status(root)).toBe('');
  });
});
