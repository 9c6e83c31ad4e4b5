import { z } from 'zod';

/**
 * The source checkout as it was just before an agent attempt started: the commit it had
 * checked out and every file git showed as changed (modified, staged, untracked; the
 * dispatcher's own `agent-task/` left out), each with what it takes to put it back. Kept as
 * `source-before.json` in the attempt folder, so a dispatcher that restarts still checks an
 * attempt the one before it started.
 */
export const sourceSnapshotSchema = z.strictObject({
  schema: z.literal(1),
  /** The checked-out commit (undefined in a repository without commits). */
  head: z.string().optional(),
  /** Repository-relative path → the file as it was. */
  entries: z.record(
    z.string(),
    z.strictObject({
      /** git status (porcelain v2) `XY`: index and work tree against HEAD; `??` untracked. */
      status: z.string(),
      /** The working-tree file's bytes as a git blob (written to the object database). */
      blob: z.string().optional(),
      /** The working-tree file is a symbolic link to this target. */
      link: z.string().optional(),
      /** File mode (the executable bit matters). */
      mode: z.number().int().optional(),
      /** The working-tree file was absent (a deletion the user made). */
      absent: z.boolean().optional(),
      /** Too large, or unreadable, to keep a copy of: a change to it is reported, not put back. */
      unkept: z.boolean().optional(),
      /** The index entry when the user had staged the file: its mode and blob. */
      index: z.strictObject({ mode: z.string(), blob: z.string() }).optional(),
    }),
  ),
});
export type SourceSnapshot = z.output<typeof sourceSnapshotSchema>;

/** One file of the source an attempt changed (paths workspace-relative; `../x` above it). */
export interface SourceChange {
  path: string;
  /** Put back as it was before the attempt. */
  restored: boolean;
  /** Where the version the attempt left is kept (absent when there was no file to keep). */
  kept?: string;
  /** Why it was not put back. */
  why?: string;
}

/** What {@link SourceGuard.check} is asked to do. */
export interface SourceCheckRequest {
  /** Workspace-relative files others may change meanwhile (the claims of running tasks
   * under isolation "none"); never reported. */
  allowed?: ReadonlySet<string>;
  /** Put the changes back (false: report them only, e.g. when a command of the dispatcher
   * also ran in the source meanwhile, so they may not be the agent's). */
  restore: boolean;
  /** Folder that keeps the version of each changed file found, before it is put back. */
  keepDir: string;
}

/**
 * Watches the source checkout around agent attempts (implemented with git by
 * `@switchyard/git-isolation`). Nothing an agent runs may change it: under worktree isolation
 * agents work in their worktree, and without isolation only the write sets of running tasks
 * change. `snapshot` before the attempt; `check` after it lists what changed since and puts it
 * back as the snapshot had it, so the user's own uncommitted edits from before are never
 * touched, and the dispatcher's applies (which move files from clean to clean) never show.
 */
export interface SourceGuard {
  snapshot(): Promise<SourceSnapshot>;
  check(before: SourceSnapshot, request: SourceCheckRequest): Promise<SourceChange[]>;
}
