import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { ARCHIVE_DIR, agentTaskDir, STATE_DIR } from '@switchyard/core';

/** Options of {@link followPlans}. */
export interface FollowOptions {
  /** Fallback poll period (ms): catches what fs.watch misses (network file systems, a
   * folder created after the watch started). */
  pollMs?: number;
}

/**
 * Calls `onChange()` when task folders of a workspace were added, moved or removed (its
 * `agent-task/` and group folders: the plans, which live in the clone, not in the store).
 * Uses fs.watch where it can and a cheap stat-only poll besides. The run state is read through
 * the store (see StoreFollower). Returns a stop function.
 */
export function followPlans(
  workspace: string,
  onChange: () => void,
  options: FollowOptions = {},
): () => void {
  const tasksRoot = agentTaskDir(workspace);
  const watchers = new Map<string, FSWatcher>();
  let last = plansSignature(tasksRoot);
  // A signature taken within the file system's time granularity of a change cannot see a
  // second change in the same tick (same mtime): it is re-checked once more later.
  let racy = isRacy(last);
  const watchDir = (path: string) => {
    if (watchers.has(path)) return;
    try {
      const w = watch(path, { persistent: false }, () => {
        // Seen now: the poll must not report the same change a second time.
        last = plansSignature(tasksRoot);
        racy ||= isRacy(last);
        onChange();
      });
      w.on('error', () => {
        w.close();
        watchers.delete(path);
      });
      watchers.set(path, w);
    } catch {
      // not there yet: the poll retries
    }
  };
  const attach = () => {
    for (const group of [...taskGroups(tasksRoot), '']) watchDir(join(tasksRoot, group));
  };
  attach();
  const timer = setInterval(() => {
    attach();
    const now = plansSignature(tasksRoot);
    const recheck = racy;
    racy = isRacy(now);
    if (now !== last || recheck) {
      last = now;
      onChange();
    }
  }, options.pollMs ?? 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
}

/**
 * Time within which two changes of one file may carry the same mtime: the kernel stamps
 * files with a coarse clock (a few ms on Linux, up to 2 s on some file systems).
 */
const RACY_MS = 2000;

/** Whether a signature holds an mtime so recent that a change in the same tick is invisible. */
function isRacy(sig: string, now = Date.now()): boolean {
  for (const part of sig.split('|')) {
    const mtime = Number(part);
    if (Number.isFinite(mtime) && mtime >= now - RACY_MS) return true;
  }
  return false;
}

/** Group folders of `agent-task/` (not the state or archive folders). */
function taskGroups(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== STATE_DIR && e.name !== ARCHIVE_DIR)
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/** Times of `agent-task/` and its group folders: they change when task folders come or go. */
function plansSignature(root: string): string {
  return ['', ...taskGroups(root)]
    .map((group) => {
      try {
        return String(statSync(join(root, group)).mtimeMs);
      } catch {
        return '-';
      }
    })
    .join('|');
}
