import { posix, relative, sep } from 'node:path';
import type { SourceChange, SourceGuard } from '@switchyard/core';
import { withApplyLock } from './apply-lock.js';
import { inApplyQueue, sourceSettled } from './apply-queue.js';
import type { IsolationContext } from './isolation-context.js';
import { type LayoutOptions, layoutOf } from './layout.js';
import { findRepository, toRepoPath, toWorkspacePath } from './repository.js';
import { restoreSource } from './source-restore.js';
import { changedBetween, sourceSnapshot } from './source-status.js';

/** Options of {@link openSourceGuard}: where the state and the worktrees are (never looked at). */
export type SourceGuardOptions = LayoutOptions;

/**
 * The source guard for `workspace` (see core's `SourceGuard`), or undefined outside git.
 * It never looks at the workspace's `agent-task/` (the dispatcher writes there; an agent's
 * writes there are judged by the dispatcher's own records) nor at the worktrees. It reads the
 * checkout once the applies of this process have finished moving it, and puts changes back in
 * the repository's apply turn, so it never writes beside an apply.
 */
export async function openSourceGuard(
  workspace: string,
  options: SourceGuardOptions = {},
): Promise<SourceGuard | undefined> {
  const repo = await findRepository(workspace);
  if (!repo) return undefined;
  const ctx: Pick<IsolationContext, 'repo' | 'layout'> = { repo, layout: layoutOf(repo, options) };
  const exclude = [
    toRepoPath(repo, 'agent-task'),
    ...insideRepo(repo.root, ctx.layout.worktreesDir),
  ];
  const snapshot = async (keep: boolean) => {
    await sourceSettled(ctx.layout.lockFile);
    return sourceSnapshot(repo, exclude, keep);
  };
  return {
    snapshot: () => snapshot(true),
    async check(before, request) {
      const allowed = new Set([...(request.allowed ?? [])].map((f) => toRepoPath(repo, f)));
      const changed = (after: Awaited<ReturnType<typeof snapshot>>) =>
        changedBetween(before, after).filter((p) => !allowed.has(p));
      const found = changed(await snapshot(false));
      if (found.length === 0) return [];
      const asChange = (path: string, extra: Partial<SourceChange> = {}): SourceChange => ({
        path: toWorkspacePath(repo, path),
        restored: false,
        ...extra,
      });
      if (!request.restore) return found.map((p) => asChange(p));
      // In the apply turn, read again: the same changes, with no apply moving files meanwhile.
      return inApplyQueue(ctx.layout.lockFile, undefined, () =>
        withApplyLock(ctx, undefined, undefined, async () => {
          const now = changed(await sourceSnapshot(repo, exclude, false));
          const restored = await restoreSource(repo, before, now, request.keepDir);
          return restored.map((r) =>
            asChange(r.path, {
              restored: r.restored,
              ...(r.kept ? { kept: r.kept } : {}),
              ...(r.why ? { why: r.why } : {}),
            }),
          );
        }),
      );
    },
  };
}

/** `dir` relative to the repository root, when it lies inside it. */
function insideRepo(root: string, dir: string): string[] {
  const rel = relative(root, dir);
  return rel && !rel.startsWith('..') && !rel.startsWith(sep)
    ? [rel.split(sep).join(posix.sep)]
    : [];
}
