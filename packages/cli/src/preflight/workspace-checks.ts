import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Problem } from '@switchyard/core/dry-run';
import { PHASES } from '@switchyard/core/lifecycle';
import { quoteArgv } from '@switchyard/tasks/dry-run';
import { gitFacts, gitFix, gitRun } from './git-facts.js';
import type { PreflightCheck, PreflightContext } from './registry.js';

/** Phases from the apply on: the task's change is on its way to (or on) the source; not checked. */
const LANDING: ReadonlySet<string> = new Set(PHASES.slice(PHASES.indexOf('apply')));

/**
 * The user's uncommitted work on files tasks will change: the apply of such a task waits for
 * it (the source is never overwritten), so an unattended run would never land that task.
 */
export const dirtyWriteSetCheck: PreflightCheck = {
  name: 'dirty-write-set',
  what: 'no uncommitted change in the source checkout overlaps a write set',
  applies: (ctx) => ctx.isolation === 'worktree' && ctx.tasks.length > 0,
  async run(ctx) {
    const facts = await gitFacts(ctx);
    if (!facts?.head) return [];
    const { dirtySourceFiles, toRepoPath, toWorkspacePath } = await import(
      '@switchyard/git-isolation'
    );
    const owners = new Map<string, string[]>();
    for (const task of ctx.tasks) {
      const state = ctx.states.get(task.id);
      if (LANDING.has(state?.phase ?? '')) continue;
      // A task that started in the shared workspace finishes there: those changes are its own.
      if (state?.isolationMode === 'none') continue;
      for (const entry of task.writeSet) {
        const file = toRepoPath(facts.repo, entry.path);
        owners.set(file, [...(owners.get(file) ?? []), task.id]);
      }
    }
    const dirty = await dirtySourceFiles(facts.repo, [...owners.keys()]);
    if (dirty.length === 0) return [];
    const files = dirty.map((f) => toWorkspacePath(facts.repo, f));
    const tasks = [...new Set(dirty.flatMap((f) => owners.get(f) ?? []))].sort();
    return [
      {
        code: 'SY_PREFLIGHT_DIRTY_WRITE_SET',
        message: `uncommitted changes in the source checkout overlap the write set of ${tasks.join(', ')}: ${files.join(', ')}. Their commits would wait for those files to be clean`,
        hint: 'stash them (git stash pop brings them back) or commit them, then run again',
        fix: gitFix(facts, 'stash', 'push', '--include-untracked', '--', ...dirty),
        severity: 'error',
      },
    ];
  },
};

/** Headroom kept free besides the worktrees: git objects, logs, the agents' own files. */
const HEADROOM_BYTES = 256 * 1024 ** 2;

/**
 * Each task being worked on gets a worktree: a full checkout of the source branch. The run
 * needs room for as many as work at once (max parallel, or every task when unlimited).
 */
export const freeDiskCheck: PreflightCheck = {
  name: 'free-disk',
  what: 'free disk for the task worktrees the run creates',
  applies: (ctx) => ctx.isolation === 'worktree' && ctx.tasks.length > 0,
  async run(ctx) {
    const facts = await gitFacts(ctx);
    if (!facts?.head) return [];
    const checkout = await checkoutBytes(ctx, facts.repo.root);
    const { layoutOf } = await import('@switchyard/git-isolation');
    const { isolationSettings } = await import('@switchyard/config');
    const { dir } = isolationSettings(ctx.config.isolation);
    const where = layoutOf(facts.repo, { ...(dir ? { dir } : {}), env: ctx.env }).worktreesDir;
    const free = await (ctx.diskFree ?? freeBytes)(where);
    if (free === undefined) return [];
    const fresh = ctx.tasks.filter((t) => !ctx.states.get(t.id)?.isolation).length;
    const atOnce = ctx.maxParallel === 0 ? fresh : Math.min(fresh, ctx.maxParallel);
    const needed = atOnce * checkout + HEADROOM_BYTES;
    if (free >= needed) return [];
    const fits = Math.floor((free - HEADROOM_BYTES) / Math.max(checkout, 1));
    return [
      {
        code: 'SY_PREFLIGHT_DISK_SPACE',
        message: `${mib(free)} free under ${where}, but ${atOnce} task worktree(s) of ${mib(checkout)} each need ${mib(needed)} with headroom`,
        hint:
          fits >= 1
            ? `run fewer tasks at once, or free space on that disk (switchyard clean removes finished worktrees)`
            : 'free space on that disk (switchyard clean removes finished worktrees)',
        fix:
          fits >= 1
            ? `switchyard run --max-parallel ${fits}`
            : quoteArgv(['switchyard', 'clean', '--workspace', ctx.workspace]),
        severity: 'error',
      } satisfies Problem,
    ];
  },
};

const mib = (bytes: number) => `${Math.max(0, bytes / 1024 ** 2).toFixed(1)} MiB`;

/** Bytes of every file in HEAD's tree: what one worktree checks out. */
async function checkoutBytes(ctx: PreflightContext, root: string): Promise<number> {
  const tree = await gitRun(ctx, root, ['ls-tree', '-r', '-l', '-z', 'HEAD']);
  let total = 0;
  for (const entry of tree.stdout.split('\0')) {
    const size = Number(/^\S+ blob \S+\s+(\d+)\t/.exec(entry)?.[1]);
    if (Number.isFinite(size)) total += size;
  }
  return total;
}

/** Free bytes for an unprivileged writer on the disk of `path` (or its nearest existing parent). */
async function freeBytes(path: string): Promise<number | undefined> {
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      const stats = await statfs(dir);
      return stats.bavail * stats.bsize;
    } catch {
      if (dirname(dir) === dir) return undefined;
    }
  }
}
