import { z } from 'zod';

const commitId = z.string().regex(/^[0-9a-f]{40,64}$/, 'a full commit id');
const instant = z.string().min(1);

/**
 * A task's worktree, persisted at `agent-task/.switchyard/isolation/worktrees/<group>/<task>.json`
 * before the worktree is created, so a restarted dispatcher re-attaches to the same one.
 */
export const worktreeRecordSchema = z.strictObject({
  schema: z.literal(1),
  taskId: z.string().min(1),
  /** `switchyard/<group>/<task>`. */
  branch: z.string().min(1),
  /** Absolute root of the git worktree. */
  path: z.string().min(1),
  /** Absolute directory agents and gates run in: `path` + the workspace's prefix in the repository. */
  workdir: z.string().min(1),
  /** The branch the workspace has checked out; tasks are applied onto its tip. */
  sourceBranch: z.string().min(1),
  /** The source branch's tip when the worktree was created. */
  baseCommit: commitId,
  /** active: agents work in it; applied: its commit is on the source branch; blocked: kept as evidence. */
  state: z.enum(['active', 'applied', 'blocked']),
  createdAt: instant,
  appliedCommit: commitId.optional(),
  /** The repository's config, hooks and `info/` when the worktree was created (entry → hash):
   * an agent's change to them is refused by the write-set check. */
  metadata: z.record(z.string(), z.string()).optional(),
  /** Ignored files copied in from the workspace when the worktree was created (`isolation.copy`). */
  copied: z.array(z.string()).optional(),
  /** Files `isolation.copy` matched but did not copy, each with why. */
  copySkipped: z.array(z.string()).optional(),
  /** When the worktree's set-up (`isolation.setup`) passed; unset on a worktree created since. */
  setUpAt: instant.optional(),
});
export type WorktreeRecord = z.output<typeof worktreeRecordSchema>;

/**
 * The steps of an apply, in order. Each is recorded in the journal before it is taken:
 * commit (the task's changes become one commit on its branch), rebase (that commit is
 * replayed onto the source tip, in the object database only), advance (the source branch,
 * index and the task's files move to it), dod (the definition of done runs on the source),
 * verified, rollback (back to the previous tip), then the final outcome.
 */
export const APPLY_STEPS = [
  'commit',
  'rebase',
  'advance',
  'dod',
  'verified',
  'rollback',
  'rolled-back',
  'done',
] as const;
export type ApplyStep = (typeof APPLY_STEPS)[number];

/** One apply in progress (or finished), persisted at `…/isolation/apply/<group>/<task>.json`. */
export const applyJournalSchema = z.strictObject({
  schema: z.literal(1),
  taskId: z.string().min(1),
  sourceBranch: z.string().min(1),
  baseCommit: commitId,
  /** The last step recorded; it may or may not have been taken. */
  step: z.enum(APPLY_STEPS),
  /** The task's changes as one commit on top of `baseCommit`. */
  taskCommit: commitId.optional(),
  /** The source tip the apply started from (and returns to on rollback). */
  sourceTip: commitId.optional(),
  /** The task's commit replayed onto `sourceTip`. */
  sourceCommit: commitId.optional(),
  /** Repository-relative files that differ between `sourceTip` and `sourceCommit`. */
  files: z.array(z.string()).default([]),
  /** Why it was rolled back (DoD failure, interrupted). */
  reason: z.string().optional(),
  history: z.array(z.strictObject({ step: z.enum(APPLY_STEPS), at: instant })),
});
export type ApplyJournal = z.output<typeof applyJournalSchema>;
