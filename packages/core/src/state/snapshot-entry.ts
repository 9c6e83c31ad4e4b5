import { z } from 'zod';

/** One file of a snapshot: what identifies its version without reading it, and its content hash. */
export const snapshotEntrySchema = z.object({
  size: z.number(),
  mtimeMs: z.number(),
  ino: z.number(),
  /** SHA-256 of the content (of the link text for a symbolic link). */
  sha256: z.string(),
});
export type SnapshotEntry = z.infer<typeof snapshotEntrySchema>;

/** Workspace-relative path ('/'-separated) -> entry. */
export type Snapshot = Record<string, SnapshotEntry>;
