import { z } from 'zod';

/** One file of a snapshot: what identifies its version without reading it, and its content hash. */
export const snapshotEntrySchema = z.object({
  size: z.number(),
  mtimeMs: z.number(),
  ino: z.number(),
  /** Permission bits (`mode & 0o7777`): a chmod is a change as an edit is. Absent in
   * snapshots written before it was recorded, which then compare by content only. */
  mode: z.number().optional(),
  /** SHA-256 of the content (of the link text for a symbolic link). */
  sha256: z.string(),
});
export type SnapshotEntry = z.infer<typeof snapshotEntrySchema>;

/** Workspace-relative path ('/'-separated) -> entry. */
export type Snapshot = Record<string, SnapshotEntry>;
