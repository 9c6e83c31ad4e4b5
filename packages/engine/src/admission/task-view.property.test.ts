import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { newTaskState, stateDir as stateDirOf } from '@switchyard/core';
import { openClaimStore, openStateStore, readClaims } from '@switchyard/store-fs';
import { createMemoryStore, type MemoryStore } from '@switchyard/store-memory';
import { loadWorkspace } from '@switchyard/tasks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRuntimes } from '../dispatcher/agent/runtimes.js';
import { liveAdmissionState } from '../dispatcher/live-admission.js';
import type { DispatchContext } from '../dispatcher/types.js';
import { planDryRun } from '../dry-run/index.js';
import { PHASES, type Phase } from '../lifecycle/index.js';
import { admit } from './admit.js';
import { claimKeys, slotFreeTasks } from './task-view.js';

/**
 * Write-set paths of the generated workspaces. `link/` is a symlink to `real/` and `alias.ts`
 * one to `src/c.ts`, so several entries name the same file by different paths.
 */
const PATHS = [
  'real/a.ts',
  'link/a.ts',
  'real/b.ts',
  'link/b.ts',
  'link/new.ts',
  'real/new.ts',
  'src/c.ts',
  'alias.ts',
  'src/d.ts',
];

interface GenTask {
  group: 'g1' | 'g2';
  paths: number[];
  /** Indexes of earlier tasks it depends on (no cycles). */
  deps: number[];
  archived: boolean;
  /** Persisted phase of an active task (a restart): gates and archives take no agent slot. */
  phase: Phase | undefined;
}

const genTask = fc.record({
  group: fc.constantFrom('g1' as const, 'g2' as const),
  paths: fc.uniqueArray(fc.nat(PATHS.length - 1), { minLength: 1, maxLength: 3 }),
  deps: fc.uniqueArray(fc.nat(6), { maxLength: 2 }),
  archived: fc.boolean(),
  phase: fc.option(fc.constantFrom(...PHASES), { nil: undefined }),
});

const genWorkspace = fc.record({
  tasks: fc.array(genTask, { minLength: 1, maxLength: 7 }),
  maxParallel: fc.nat(3),
  /** A task (by index) holding its claim from an earlier run, if any. */
  holder: fc.option(fc.nat(6), { nil: undefined }),
});

type GenWorkspace = { tasks: GenTask[]; maxParallel: number; holder: number | undefined };

function plan(paths: string[], deps: string[]): string {
  return [
    '---',
    'route: cloud-G01',
    ...(deps.length ? [`depends_on: [${deps.join(', ')}]`] : []),
    '---',
    '# task',
    '',
    '## Modified Files Summary',
    '',
    ...paths.map((p) => `- ${p}`),
    '',
    '## Implementation Checklist',
    '',
    '- [ ] do it',
    '',
  ].join('\n');
}

/** Writes the generated workspace to disk: real folders, files, symlinks, plans, archive. */
async function materialize(spec: GenWorkspace): Promise<{ ws: string; store: MemoryStore }> {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'sy-view-')));
  for (const f of ['real/a.ts', 'real/b.ts', 'src/c.ts', 'src/d.ts']) {
    mkdirSync(dirname(join(ws, f)), { recursive: true });
    writeFileSync(join(ws, f), '');
  }
  symlinkSync('real', join(ws, 'link'));
  symlinkSync('src/c.ts', join(ws, 'alias.ts'));
  const ids = spec.tasks.map((t, i) => `${t.group}/t${i}`);
  spec.tasks.forEach((t, i) => {
    const deps = t.deps.filter((d) => d < i).map((d) => ids[d]!);
    const base = t.archived
      ? join(ws, 'agent-task/archive', ids[i]!)
      : join(ws, 'agent-task', ids[i]!);
    mkdirSync(base, { recursive: true });
    writeFileSync(
      join(base, 'PLAN.md'),
      plan(
        t.paths.map((p) => PATHS[p]!),
        deps,
      ),
    );
    if (t.archived) writeFileSync(join(base, 'complete.log'), 'task: done\n');
  });
  const stateDir = stateDirOf(ws);
  mkdirSync(stateDir, { recursive: true });
  // The dry run reads the files; the live run reads its store: both get the same facts.
  const files = openStateStore(stateDir);
  const store = createMemoryStore();
  for (const [i, t] of spec.tasks.entries())
    if (t.phase !== undefined && !t.archived) {
      const state = { ...newTaskState(ids[i]!), phase: t.phase };
      await files.write(state);
      await store.tasks.put(state, { expected: 0 });
    }
  const holder = spec.holder !== undefined ? spec.tasks[spec.holder] : undefined;
  if (holder && !holder.archived) {
    const model = loadWorkspace(ws);
    const task = model.tasks.find((t) => t.id === ids[spec.holder!]);
    const claims = await openClaimStore(stateDir);
    if (task) await claims.tryClaim(task.id, claimKeys(task.writeSet));
    if (task) await store.claims.tryClaim(task.id, claimKeys(task.writeSet));
  }
  return { ws, store };
}

/** What `switchyard run --dry-run` would admit now. */
function dryRunAdmits(ws: string, maxParallel: number): string[] {
  const report = planDryRun({
    model: loadWorkspace(ws),
    routing: { valid: true, problems: [], targetIds: new Set(), stages: ['worker', 'review'] },
    maxParallel,
    claims: readClaims(stateDirOf(ws)),
    // what `run --dry-run` reads from the persisted states
    slotFree: slotFreeTasks(openStateStore(stateDirOf(ws)).list()),
    now: new Date(),
  });
  return report.admission.admitted;
}

/** What the live scheduler's first pass admits: its runtimes built as a run builds them. */
async function liveAdmits(
  { ws, store }: { ws: string; store: MemoryStore },
  maxParallel: number,
): Promise<string[]> {
  const model = loadWorkspace(ws);
  const ctx = {
    options: { workspace: ws, maxParallel },
    workspace: ws,
    stateDir: stateDirOf(ws),
    store,
    claims: store.claims,
    claimIndex: new Map(await store.claims.snapshot()),
    tasks: new Map(),
    archived: new Set([...model.archived.values()].filter((a) => a.complete).map((a) => a.id)),
    now: () => new Date(),
  } as unknown as DispatchContext;
  await buildRuntimes(ctx, model);
  return admit(liveAdmissionState(ctx, new Set(), 0)).admitted;
}

describe('one task view: the dry run and the live scheduler admit alike', () => {
  it('admit the same tasks in the same order (deps, overlapping write sets, symlinks)', async () => {
    await fc.assert(
      fc.asyncProperty(genWorkspace, async (spec) => {
        const made = await materialize(spec);
        try {
          expect(await liveAdmits(made, spec.maxParallel)).toEqual(
            dryRunAdmits(made.ws, spec.maxParallel),
          );
        } finally {
          rmSync(made.ws, { recursive: true, force: true });
        }
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it('a symlinked entry and its target are one claim: never admitted together', async () => {
    const made = await materialize({
      tasks: [
        { group: 'g1', paths: [1], deps: [], archived: false, phase: undefined }, // link/a.ts
        { group: 'g1', paths: [0], deps: [], archived: false, phase: undefined }, // real/a.ts
        { group: 'g2', paths: [7], deps: [], archived: false, phase: undefined }, // alias.ts
        { group: 'g2', paths: [6], deps: [], archived: false, phase: undefined }, // src/c.ts
        { group: 'g2', paths: [8], deps: [], archived: false, phase: undefined }, // src/d.ts
      ],
      maxParallel: 0,
      holder: undefined,
    });
    const expected = ['g1/t0', 'g2/t2', 'g2/t4'];
    expect(dryRunAdmits(made.ws, 0)).toEqual(expected);
    expect(await liveAdmits(made, 0)).toEqual(expected);
  });
});
