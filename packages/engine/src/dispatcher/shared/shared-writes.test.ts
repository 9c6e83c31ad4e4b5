import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { taskChange } from '../checks/task-change.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { inspectSharedRound, openSharedRound } from './shared-writes.js';

/** A workspace outside git with task g/t (write set src/a.ts) and task g/other (src/b.ts). */
function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'sy-shared-'));
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('src/a.ts', 'export const a = 1; // TODO from years ago\n');
  write('src/b.ts', 'export const b = 1;\n');
  write('README.md', '# project\n');
  write('node_modules/dep/index.js', 'module.exports = 1;\n');
  write('.gitignore', 'dist/\n*.log\n');
  const runtime = (id: string, path: string) =>
    ({
      id,
      group: 'g',
      task: { dir: join(dir, 'agent-task', id), writeSet: [{ path }], runner: 'agent' },
      state: newTaskState(id),
    }) as unknown as TaskRuntime;
  const rt = runtime('g/t', 'src/a.ts');
  const other = runtime('g/other', 'src/b.ts');
  const ctx = {
    workspace: dir,
    stateDir: join(dir, 'agent-task', '.switchyard'),
    tasks: new Map([
      [rt.id, rt],
      [other.id, other],
    ]),
    claimIndex: new Map([['src/b.ts', 'g/other']]),
    options: {},
    bus: { runId: 'run-1' },
    now: () => new Date('2026-12-01T12:00:00Z'),
  } as unknown as DispatchContext;
  return { dir, ctx, rt, write };
}

describe('the shared workspace: a task judged on snapshots, not a git diff', () => {
  it("finds the worker's writes outside its write set, and nothing of other tasks, ignored folders or the dispatcher", async () => {
    const { ctx, rt, write } = workspace();
    await openSharedRound(ctx, rt, 'w1');
    write('src/a.ts', 'export const a = 2; // TODO from years ago\n');
    write('README.md', '# project, edited by the worker\n');
    write('src/b.ts', 'export const b = 2;\n'); // the other task's file, written meanwhile
    write('node_modules/dep/index.js', 'module.exports = 2;\n');
    write('dist/out.js', 'built\n');
    write('agent-task/g/t/CODE_REVIEW-1.md', 'Verdict: APPROVED\n');
    const report = await inspectSharedRound(ctx, rt);
    expect(report).toEqual({
      changed: ['README.md', 'src/a.ts'],
      outside: ['README.md'],
      gitMetadata: [],
      empty: false,
    });
    // The round is closed: the next writing attempt opens a new one.
    expect(await inspectSharedRound(ctx, rt)).toBeUndefined();
    // The change judged for stubs: the lines it added, not the human's old TODO.
    expect(await taskChange(ctx, rt)).toEqual([
      {
        path: 'src/a.ts',
        added: [{ line: 1, text: 'export const a = 2; // TODO from years ago' }],
      },
    ]);
  });

  it("leaves out a change to the resolved target of another task's write-set path, and a path another task holds a claim on", async () => {
    const { ctx, rt, write } = workspace();
    const linked = {
      id: 'g/linked',
      group: 'g',
      task: { writeSet: [{ path: 'link/c.ts', resolved: 'real/c.ts' }], runner: 'agent' },
      state: newTaskState('g/linked'),
    } as unknown as TaskRuntime;
    ctx.tasks.set(linked.id, linked);
    ctx.claimIndex.set('gen/out.ts', 'g/elsewhere');
    await openSharedRound(ctx, rt, 'w1');
    write('real/c.ts', 'written through the link by g/linked\n');
    write('gen/out.ts', 'written by the task holding its claim\n');
    write('notes.txt', 'written by the worker\n');
    expect((await inspectSharedRound(ctx, rt))?.outside).toEqual(['notes.txt']);
  });

  it("follows the other tasks' write sets as their plans are read again, resolved targets included", async () => {
    const { ctx, rt, write } = workspace();
    const other = ctx.tasks.get('g/other')!;
    ctx.claimIndex.clear();
    await openSharedRound(ctx, rt, 'w1');
    write('src/b.ts', 'export const b = 2;\n');
    write('notes.txt', 'one\n');
    expect((await inspectSharedRound(ctx, rt))?.outside).toEqual(['notes.txt']);
    // The other task's plan read again: a new task object listing a link and its target.
    other.task = {
      ...other.task,
      writeSet: [{ path: 'link/n.txt', resolved: 'notes.txt' }],
    } as TaskRuntime['task'];
    await openSharedRound(ctx, rt, 'w2');
    write('src/b.ts', 'export const b = 3;\n');
    write('notes.txt', 'two\n');
    expect((await inspectSharedRound(ctx, rt))?.outside).toEqual(['src/b.ts']);
    // Its list given a new array in place of the old one: seen too.
    other.task.writeSet = [{ path: 'src/b.ts' }] as TaskRuntime['task']['writeSet'];
    await openSharedRound(ctx, rt, 'w3');
    write('src/b.ts', 'export const b = 4;\n');
    write('notes.txt', 'three\n');
    expect((await inspectSharedRound(ctx, rt))?.outside).toEqual(['notes.txt']);
    // A task gone from the run lists nothing any more.
    ctx.tasks.delete('g/other');
    await openSharedRound(ctx, rt, 'w4');
    write('src/b.ts', 'export const b = 5;\n');
    expect((await inspectSharedRound(ctx, rt))?.outside).toEqual(['src/b.ts']);
  });

  it('a file touched but not changed is no change', async () => {
    const { dir, ctx, rt } = workspace();
    await openSharedRound(ctx, rt, 'w1');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'README.md'), later, later);
    utimesSync(join(dir, 'src/a.ts'), later, later);
    expect(await inspectSharedRound(ctx, rt)).toEqual({
      changed: [],
      outside: [],
      gitMetadata: [],
      empty: false,
    });
  });

  it('an earlier failed attempt keeps its round open: its writes are judged with the next', async () => {
    const { ctx, rt, write } = workspace();
    await openSharedRound(ctx, rt, 'w1');
    write('notes.txt', 'left by a failed attempt\n');
    await openSharedRound(ctx, rt, 'w2'); // the retry: the round stays the first one's
    write('src/a.ts', 'export const a = 3;\n');
    expect((await inspectSharedRound(ctx, rt))?.outside).toEqual(['notes.txt']);
  });

  it('finds files created in a new folder and deleted files outside the write set', async () => {
    const { ctx, rt, write } = workspace();
    await openSharedRound(ctx, rt, 'w1');
    mkdirSync(join(ctx.workspace, 'new', 'folder'), { recursive: true });
    write('new/folder/file.txt', 'created by the worker\n');
    rmSync(join(ctx.workspace, 'README.md'));
    expect(await inspectSharedRound(ctx, rt)).toEqual({
      changed: ['README.md', 'new/folder/file.txt'],
      outside: ['README.md', 'new/folder/file.txt'],
      gitMetadata: [],
      empty: false,
    });
  });

  it('a round an earlier run left (the task blocked, a person edited meanwhile) starts over', async () => {
    const { ctx, rt, write } = workspace();
    await openSharedRound(ctx, rt, 'w1');
    write('.gitignore', 'dist/\n*.log\nnotes/\n'); // the person, between the runs
    // The next run's clock stepped back an hour: the round is still the earlier run's.
    const next = {
      ...ctx,
      bus: { runId: 'run-2' },
      runStartedAt: Date.parse('2026-12-01T11:00:00Z'),
      now: () => new Date('2026-12-01T11:00:00Z'),
    } as unknown as DispatchContext;
    await openSharedRound(next, rt, 'w3');
    write('src/a.ts', 'export const a = 4;\n');
    expect((await inspectSharedRound(next, rt))?.outside).toEqual([]);
  });

  it('a round an earlier run left is dropped once the workspace became a repository (the source guard judges)', async () => {
    const { ctx, rt, write } = workspace();
    await openSharedRound(ctx, rt, 'w1');
    write('.gitignore', 'dist/\n*.log\nnotes/\n'); // the person, between the runs (`git init`)
    const next = {
      ...ctx,
      bus: { runId: 'run-2' },
      options: { sourceGuard: true },
    } as unknown as DispatchContext;
    await openSharedRound(next, rt, 'w3');
    expect(await inspectSharedRound(next, rt)).toBeUndefined();
  });
});
