import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `~` and `~/…` expanded to the home directory. */
export function expandHome(path: string, home = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return resolve(path);
}

/** First `bytes` of a file as text ('' when unreadable). */
export function readHead(file: string, bytes = 64 * 1024): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Finds the native session file of `sessionId` under `sessionPath` (depth ≤ 6): a file whose
 * name holds the id (Claude `<id>.jsonl`, Codex `rollout-<ts>-<id>.jsonl`, Qwen
 * `<id>.jsonl`) or, for Gemini's `session-<ts>-<id8>.json`, the id's first 8 characters with
 * the full id inside the file. The newest match wins.
 */
export function findSessionFile(sessionPath: string, sessionId: string): string | undefined {
  const short = sessionId.slice(0, 8);
  let best: { file: string; mtime: number } | undefined;
  const walk = (dir: string, depth: number) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < 6) walk(full, depth + 1);
        continue;
      }
      const exact = entry.name.includes(sessionId);
      if (
        !exact &&
        !(
          short.length === 8 &&
          entry.name.includes(short) &&
          readHead(full, 4096).includes(sessionId)
        )
      )
        continue;
      const mtime = statSync(full).mtimeMs;
      if (!best || mtime > best.mtime) best = { file: full, mtime };
    }
  };
  walk(expandHome(sessionPath), 0);
  return best?.file;
}
