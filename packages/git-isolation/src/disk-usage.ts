import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes used by the files under `dir` (symbolic links counted, never followed); 0 when absent. */
export async function diskUsage(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else total += (await lstat(path).catch(() => undefined))?.size ?? 0;
    }
  }
  return total;
}
