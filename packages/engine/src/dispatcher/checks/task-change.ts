import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ChangeBaseline } from '@switchyard/store-fs';
import { readBoundedFile } from '@switchyard/utils';
import {
  addedLinesBetween,
  addedLinesOfPatch,
  type ChangedFile,
} from '../../verification/added-lines.js';
import { changeStoreOf } from '../shared/change-store-of.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { isolationOf } from '../worktree/task-worktree.js';

/** Largest write-set file whose text the baseline keeps (larger ones: only their hash). */
const BASELINE_TEXT_BYTES = 2 * 1024 * 1024;

/**
 * The task's change as its checks judge it: each changed file with the lines it added (a
 * human's old `TODO` in a touched file is not the task's). Under worktree isolation the
 * worktree's diff against its base (commits the agent made and new files included); in the
 * shared workspace its write-set files against their baseline (recorded before its first
 * agent, {@link recordChangeBaseline}). Deleted files are left out: a deletion adds nothing.
 */
export async function taskChange(ctx: DispatchContext, rt: TaskRuntime): Promise<ChangedFile[]> {
  const isolation = isolationOf(ctx);
  const facts = rt.state.isolation;
  if (isolation && facts) {
    const prefix = relative(facts.path, facts.workdir).split(sep).join('/');
    return addedLinesOfPatch(await isolation.patch(rt.id), prefix);
  }
  const baseline = changeStoreOf(ctx).readBaseline(rt.id);
  if (!baseline) return [];
  const files: ChangedFile[] = [];
  for (const { path } of rt.task.writeSet) {
    const before = baseline.files[path];
    const now = readFileFacts(join(ctx.workspace, path));
    if (!before || now === undefined) continue; // no baseline for it yet, or deleted
    if (before.exists && before.sha256 === now.sha256) continue;
    const added =
      now.text === undefined || (before.exists && before.text === undefined)
        ? [] // too large or not text: changed, but no lines to judge
        : addedLinesBetween(before.exists ? before.text : undefined, now.text);
    files.push({ path, added });
  }
  return files;
}

/**
 * Shared workspace: records each write-set file the task's baseline does not have yet, as it
 * is now (before the task's first agent; a follow-up plan's new files before its first). The
 * claim keeps other tasks off these files, so the baseline stays the task's own starting point.
 */
export async function recordChangeBaseline(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  if (rt.state.isolation) return;
  const store = changeStoreOf(ctx);
  const baseline: ChangeBaseline = store.readBaseline(rt.id) ?? {
    schema_version: 1,
    task: rt.id,
    files: {},
  };
  const missing = rt.task.writeSet.filter((e) => !(e.path in baseline.files));
  if (missing.length === 0) return;
  for (const { path } of missing) {
    const now = readFileFacts(join(ctx.workspace, path));
    baseline.files[path] = now
      ? { exists: true, sha256: now.sha256, ...(now.text !== undefined ? { text: now.text } : {}) }
      : { exists: false };
  }
  await store.writeBaseline(baseline);
}

/**
 * A file's content hash and, when it is UTF-8 text small enough to keep, its text; undefined
 * when it is absent (or not a regular file).
 */
export function readFileFacts(path: string): { sha256: string; text?: string } | undefined {
  const read = readBoundedFile(path, { maxBytes: BASELINE_TEXT_BYTES });
  if (!read.ok && read.reason !== 'too-large') return undefined;
  let sha256: string;
  try {
    sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined; // removed meanwhile
  }
  if (!read.ok) return { sha256 }; // over the cap: no lines are judged in it
  const text = read.text;
  return text.includes('\u0000') || text.includes('\uFFFD') ? { sha256 } : { sha256, text };
}
