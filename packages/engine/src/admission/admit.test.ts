import { describe, expect, it } from 'vitest';
import { type AdmissionState, admit, worktreeDiskFull } from './admit.js';
import { writeSetCollisions } from './collisions.js';
import { worktreeBytes } from './worktree-bytes.js';

const t = (id: string, writeSet: string[], dependsOn: string[] = []) => ({
  id,
  writeSet,
  dependsOn,
});
const base = (over: Partial<AdmissionState>): AdmissionState => ({
  tasks: [],
  archivedComplete: new Set(),
  liveAttempts: new Set(),
  claims: new Map(),
  activeStages: 0,
  maxParallel: 3,
  ...over,
});
const statuses = (state: AdmissionState) =>
  Object.fromEntries(admit(state).decisions.map((d) => [d.id, d.status]));

describe('admit', () => {
  it('admits ready tasks in id order up to max_parallel (default 3)', () => {
    const tasks = ['g/e', 'g/a', 'g/d', 'g/b', 'g/c'].map((id) => t(id, [`${id}.ts`]));
    const result = admit(base({ tasks }));
    expect(result.admitted).toEqual(['g/a', 'g/b', 'g/c']);
    expect(statuses(base({ tasks }))).toMatchObject({
      'g/d': 'waiting-slot',
      'g/e': 'waiting-slot',
    });
  });

  it('counts active stages of the whole workspace, and 0 means unlimited', () => {
    const tasks = ['g/a', 'g/b', 'g/c', 'g/d'].map((id) => t(id, [`${id}.ts`]));
    expect(admit(base({ tasks, activeStages: 2 })).admitted).toEqual(['g/a']);
    expect(admit(base({ tasks, activeStages: 3 })).admitted).toEqual([]);
    expect(admit(base({ tasks, activeStages: 50, maxParallel: 0 })).admitted).toEqual([
      'g/a',
      'g/b',
      'g/c',
      'g/d',
    ]);
  });

  it('waits for dependencies to be archived complete with no live attempt', () => {
    const tasks = [t('g/b', ['b.ts'], ['g/a']), t('g/c', ['c.ts'], ['old/x'])];
    expect(statuses(base({ tasks }))).toEqual({
      'g/b': 'waiting-dependencies',
      'g/c': 'waiting-dependencies',
    });
    expect(statuses(base({ tasks, archivedComplete: new Set(['g/a', 'old/x']) }))).toEqual({
      'g/b': 'admitted',
      'g/c': 'admitted',
    });
    // complete.log visible but the predecessor still has a live attempt: not finished
    const live = admit(
      base({
        tasks,
        archivedComplete: new Set(['g/a', 'old/x']),
        liveAttempts: new Set(['old/x']),
      }),
    );
    expect(live.decisions.find((d) => d.id === 'g/c')).toEqual({
      id: 'g/c',
      status: 'waiting-dependencies',
      waitingOn: ['old/x'],
    });
  });

  it('serializes tasks whose write sets intersect, against held claims and within the pass', () => {
    const tasks = [
      t('g/a', ['shared.ts', 'a.ts']),
      t('g/b', ['shared.ts']),
      t('g/c', ['c.ts']),
      t('g/d', ['held.ts']),
    ];
    const result = admit(
      base({ tasks, claims: new Map([['held.ts', 'other/z']]), maxParallel: 0 }),
    );
    expect(result.admitted).toEqual(['g/a', 'g/c']);
    expect(result.decisions.find((d) => d.id === 'g/b')).toEqual({
      id: 'g/b',
      status: 'waiting-claim',
      conflicts: [{ path: 'shared.ts', holder: 'g/a' }],
    });
    expect(result.decisions.find((d) => d.id === 'g/d')?.conflicts).toEqual([
      { path: 'held.ts', holder: 'other/z' },
    ]);
  });

  it('puts tasks that already hold their claim first and does not conflict with their own claim', () => {
    const tasks = [t('g/a', ['x.ts']), t('g/z', ['x.ts', 'z.ts'])];
    const result = admit(base({ tasks, claims: new Map([['x.ts', 'g/z']]), maxParallel: 1 }));
    expect(result.admitted).toEqual(['g/z']);
    expect(result.decisions.map((d) => [d.id, d.status])).toEqual([
      ['g/z', 'admitted'],
      ['g/a', 'waiting-claim'],
    ]);
  });

  it('a blocked or invalid task delays only its dependency closure', () => {
    const tasks = [
      t('g/bad', ['1.ts']),
      t('g/after', ['2.ts'], ['g/bad']),
      t('g/later', ['3.ts'], ['g/after']),
      t('g/free', ['4.ts']),
    ];
    expect(statuses(base({ tasks, blocked: new Set(['g/bad']) }))).toEqual({
      'g/bad': 'blocked',
      'g/after': 'dependency-blocked',
      'g/later': 'dependency-blocked',
      'g/free': 'admitted',
    });
    expect(statuses(base({ tasks, invalid: new Set(['g/bad']) }))['g/free']).toBe('admitted');
  });

  it('does not admit out-of-scope tasks but still honours their claims and live stages', () => {
    const tasks = [t('a/one', ['x.ts']), t('b/two', ['x.ts']), t('b/three', ['y.ts'])];
    const result = admit(
      base({
        tasks,
        scope: new Set(['b/two', 'b/three']),
        liveAttempts: new Set(['a/one']),
        activeStages: 1,
        maxParallel: 2,
      }),
    );
    expect(result.admitted).toEqual(['b/three']);
    expect(Object.fromEntries(result.decisions.map((d) => [d.id, d.status]))).toEqual({
      'a/one': 'active',
      'b/two': 'waiting-claim',
      'b/three': 'admitted',
    });
  });

  it('is deterministic regardless of input order', () => {
    const tasks = Array.from({ length: 50 }, (_, i) =>
      t(`g/t${String(i).padStart(2, '0')}`, [`f${i % 7}.ts`]),
    );
    const a = admit(base({ tasks, maxParallel: 0 }));
    const b = admit(base({ tasks: [...tasks].reverse(), maxParallel: 0 }));
    expect(b).toEqual(a);
    expect(a.admitted).toHaveLength(7);
  });
});

describe('the apply queue rule (worktree isolation)', () => {
  // g/a..g/c have started (one is approved and waits for the apply); g/d..g/f have not.
  const started = ['g/a', 'g/b', 'g/c'].map((id) => t(id, [`${id}.ts`]));
  const fresh = ['g/d', 'g/e', 'g/f'].map((id) => ({ ...t(id, [`${id}.ts`]), fresh: true }));
  const tasks = [...started, ...fresh];

  it('holds fresh tasks while as many approved tasks as the limit wait for their apply', () => {
    const full = base({ tasks, maxParallel: 10, applyQueue: { waiting: 2, limit: 2 } });
    expect(admit(full).admitted).toEqual(['g/a', 'g/b', 'g/c']);
    expect(statuses(full)).toMatchObject({
      'g/d': 'waiting-apply',
      'g/e': 'waiting-apply',
      'g/f': 'waiting-apply',
    });
    const room = base({ tasks, maxParallel: 10, applyQueue: { waiting: 1, limit: 2 } });
    expect(admit(room).admitted).toEqual(['g/a', 'g/b', 'g/c', 'g/d', 'g/e', 'g/f']);
  });

  it('is off with limit 0 (unlimited) and without isolation (no queue given)', () => {
    expect(
      admit(base({ tasks, maxParallel: 0, applyQueue: { waiting: 50, limit: 0 } })).admitted,
    ).toHaveLength(6);
    expect(admit(base({ tasks, maxParallel: 0 })).admitted).toHaveLength(6);
  });

  it('a fresh task still waits on dependencies and claims first (the more basic reason)', () => {
    const deps = [{ ...t('g/x', ['x.ts'], ['g/a']), fresh: true }];
    expect(statuses(base({ tasks: deps, applyQueue: { waiting: 5, limit: 1 } }))).toEqual({
      'g/x': 'waiting-dependencies',
    });
  });
});

describe('the worktree disk cap rule (isolation.maxDiskBytes)', () => {
  const started = [t('g/a', ['a.ts'])];
  const fresh = [{ ...t('g/b', ['b.ts']), fresh: true }];
  const tasks = [...started, ...fresh];

  it('holds fresh tasks (a new worktree) while the worktrees take the cap; started ones go on', () => {
    const full = base({ tasks, worktreeDisk: { bytes: 5e9, cap: 5e9 } });
    expect(statuses(full)).toEqual({ 'g/a': 'admitted', 'g/b': 'waiting-disk' });
    const room = base({ tasks, worktreeDisk: { bytes: 5e9 - 1, cap: 5e9 } });
    expect(admit(room).admitted).toEqual(['g/a', 'g/b']);
    expect(admit(base({ tasks })).admitted).toEqual(['g/a', 'g/b']);
    expect(worktreeDiskFull({ bytes: 1, cap: 0 })).toBe(false);
  });

  it('counts the measured worktrees of every task not archived, blocked ones too', () => {
    const isolation = (bytes: number) => ({ disk: { bytes, sharedBytes: 7, at: '' } }) as never;
    expect(
      worktreeBytes([
        { phase: 'worker', isolation: isolation(100) },
        { phase: 'apply', isolation: isolation(20) },
        { phase: 'done', isolation: isolation(1000) },
        { phase: 'worker', isolation: undefined },
      ]),
    ).toBe(120);
  });
});

describe('writeSetCollisions', () => {
  it('lists every shared path with its tasks', () => {
    expect(
      writeSetCollisions([
        t('g/b', ['x.ts', 'y.ts']),
        t('g/a', ['x.ts']),
        t('g/c', ['y.ts', 'y.ts']),
      ]),
    ).toEqual([
      { path: 'x.ts', tasks: ['g/a', 'g/b'] },
      { path: 'y.ts', tasks: ['g/b', 'g/c'] },
    ]);
  });
});
