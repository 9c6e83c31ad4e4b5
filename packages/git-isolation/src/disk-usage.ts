import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Disk a folder takes: its own, and what it shares through hard links (a package store). */
export interface DiskUse {
  /** Bytes of blocks its files and folders take that nothing outside shares: what removing it frees. */
  bytes: number;
  /** Bytes of files hard-linked from elsewhere (e.g. pnpm's content-addressed store). */
  sharedBytes: number;
}

/** Directory entries read at once: enough to overlap the disk, few enough for a shared machine. */
const BATCH = 64;

/**
 * What the files under `dir` take on disk (allocated blocks, as `du` counts them; symbolic
 * links counted, never followed; each inode once), split into what is its own and what is
 * shared by hard links with files outside (`nlink > 1`, counted apart: removing the folder
 * does not free it). Zero for a folder that does not exist.
 */
export async function diskUsage(dir: string): Promise<DiskUse> {
  const use: DiskUse = { bytes: 0, sharedBytes: 0 };
  const seen = new Set<number>();
  let pending = [dir];
  while (pending.length > 0) {
    const next: string[] = [];
    for (let i = 0; i < pending.length; i += BATCH) {
      const listed = await Promise.all(
        pending.slice(i, i + BATCH).map(async (current) => {
          const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
          return entries.map((e) => ({ path: join(current, e.name), dir: e.isDirectory() }));
        }),
      );
      const entries = listed.flat();
      for (let j = 0; j < entries.length; j += BATCH) {
        const stats = await Promise.all(
          entries.slice(j, j + BATCH).map((e) => lstat(e.path).catch(() => undefined)),
        );
        for (const [k, stat] of stats.entries()) {
          const entry = entries[j + k]!;
          if (entry.dir) next.push(entry.path);
          if (!stat || seen.has(stat.ino)) continue;
          seen.add(stat.ino);
          const size = stat.blocks * 512;
          if (!entry.dir && stat.nlink > 1) use.sharedBytes += size;
          else use.bytes += size;
        }
      }
    }
    pending = next;
  }
  return use;
}
