import { statSync } from 'node:fs';

/**
 * The identity of a file now (size, mtime, ctime, inode), or undefined when it cannot be
 * stat'ed. Taken before a file is read, so a change during the read makes the key stale.
 */
export function fileIdentity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}`;
  } catch {
    return undefined;
  }
}
