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

/**
 * File times come from a coarse kernel clock (one tick is up to ~10 ms), so a file rewritten
 * within the tick it was read in, at the same size, keeps its identity. An identity whose
 * change time is this close to now may still change unseen; callers must not cache by it.
 */
const RACY_MS = 100n;

/** True when the file of `key` changed too recently for its identity to be trusted. */
export function isRacyIdentity(key: string, nowMs = Date.now()): boolean {
  const ctimeNs = key.split(':')[2];
  if (ctimeNs === undefined || !/^\d+$/.test(ctimeNs)) return true;
  return BigInt(ctimeNs) >= (BigInt(Math.floor(nowMs)) - RACY_MS) * 1_000_000n;
}
