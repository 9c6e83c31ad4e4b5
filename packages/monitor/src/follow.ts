import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { ARCHIVE_DIR, agentTaskDir, STATE_DIR, stateDir } from '@switchyard/core';
import { LOCK_FILE_NAME, readLockHolder } from '@switchyard/store-fs';
import { isSameProcessAlive } from '@switchyard/utils';

/** Options of {@link followWorkspace}. */
export interface FollowOptions {
  /** Fallback poll period (ms): catches what fs.watch misses (network file systems, a
   * folder created after the watch started, a dispatcher that died without writing). */
  pollMs?: number;
}

/** What may have changed: run state (events, task states, claims, lock) or task folders. */
export type WorkspaceChange = 'state' | 'plans';

/**
 * Calls `onChange('state')` when the persisted run state of a workspace may have changed: the
 * event log, task state files, claims or the lock (a dispatcher starting, ending or dying),
 * and `onChange('plans')` when task folders were added, moved or removed. Uses fs.watch where
 * it can and a cheap stat-only poll besides. The agents' own output files are not watched (a
 * live tail follows one attempt on demand). Returns a stop function.
 */
export function followWorkspace(
  workspace: string,
  onChange: (what: WorkspaceChange) => void,
  options: FollowOptions = {},
): () => void {
  const dir = stateDir(workspace);
  const tasksRoot = agentTaskDir(workspace);
  const watchers = new Map<string, FSWatcher>();
  let last = signature(dir);
  let lastPlans = plansSignature(tasksRoot);
  // A signature taken within the file system's time granularity of a change cannot see a
  // second change in the same tick (same size and mtime): it is re-checked once more later.
  let racy = isRacy(last, 1);
  let racyPlans = isRacy(lastPlans);
  let alive = lockAlive(dir);
  const watchDir = (path: string, recursive: boolean, what: WorkspaceChange = 'state') => {
    if (watchers.has(path)) return;
    try {
      const w = watch(path, { recursive, persistent: false }, () => {
        // Seen now: the poll must not report the same change a second time.
        if (what === 'state') {
          last = signature(dir);
          racy ||= isRacy(last, 1);
        } else {
          lastPlans = plansSignature(tasksRoot);
          racyPlans ||= isRacy(lastPlans);
        }
        onChange(what);
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
    watchDir(dir, false);
    watchDir(join(dir, 'tasks'), true);
    watchDir(join(dir, 'claims'), false);
    for (const group of [...taskGroups(tasksRoot), ''])
      watchDir(join(tasksRoot, group), false, 'plans');
  };
  attach();
  const timer = setInterval(() => {
    attach();
    const now = signature(dir);
    const nowAlive = lockAlive(dir);
    const plans = plansSignature(tasksRoot);
    const recheck = racy;
    const recheckPlans = racyPlans;
    racy = isRacy(now, 1);
    racyPlans = isRacy(plans);
    if (plans !== lastPlans || recheckPlans) {
      lastPlans = plans;
      onChange('plans');
    }
    if (now !== last || nowAlive !== alive || recheck) {
      last = now;
      alive = nowAlive;
      onChange('state');
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
 * Size and times of the files that change when the run advances (stat calls only). The event
 * log comes first and apart: it only grows, so its size alone tells a change (never racy).
 */
function signature(dir: string): string {
  const parts: string[] = [];
  const stamp = (path: string) => {
    try {
      const s = statSync(path);
      parts.push(`${s.size}:${s.mtimeMs}:${s.ino}`);
    } catch {
      parts.push('-');
    }
  };
  stamp(join(dir, 'events.jsonl'));
  stamp(join(dir, 'claims'));
  stamp(join(dir, LOCK_FILE_NAME));
  const tasks = join(dir, 'tasks');
  stamp(tasks);
  try {
    for (const group of readdirSync(tasks)) stamp(join(tasks, group));
  } catch {
    // no tasks folder yet
  }
  return parts.join('|');
}

/**
 * Time within which two changes of one file may carry the same mtime: the kernel stamps
 * files with a coarse clock (a few ms on Linux, up to 2 s on some file systems).
 */
export const RACY_MS = 2000;

/**
 * Whether a signature holds an mtime so recent that a change in the same tick is invisible
 * (`skip` leading parts that cannot be racy, such as the append-only event log).
 */
function isRacy(sig: string, skip = 0, now = Date.now()): boolean {
  for (const part of sig.split('|').slice(skip)) {
    const mtime = Number(part.split(':')[1] ?? part);
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

/** Whether the workspace lock is held by a live process (a crash ends it silently). */
function lockAlive(dir: string): boolean {
  try {
    const holder = readLockHolder(dir);
    return holder ? isSameProcessAlive({ pid: holder.pid, startToken: holder.startToken }) : false;
  } catch {
    return false;
  }
}
