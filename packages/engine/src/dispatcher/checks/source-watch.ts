import { existsSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import {
  type AttemptRecord,
  type Correction,
  type SourceSnapshot,
  sourceSnapshotSchema,
} from '@switchyard/core';
import { writeOwnedFileBelow } from '@switchyard/utils';
import type { CommandRunner, DispatchContext, SourceCommands, TaskRuntime } from '../types.js';

/** The snapshot of the source taken before an attempt, in its folder until it was checked. */
const SNAPSHOT_FILE = 'source-before.json';
/** Where the versions of source files an attempt changed are kept once put back. */
export const SOURCE_CHANGES_DIR = 'source-changes';

/** `runCommand`, counting the commands whose cwd is the source (not a worktree, not state). */
export function countingSourceCommands(
  run: CommandRunner,
  workspace: string,
  stateDir: string,
  counter: SourceCommands,
): CommandRunner {
  const inside = (dir: string, parent: string) => {
    const rel = relative(parent, dir);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  return async (request) => {
    const inSource = inside(request.cwd, workspace) && !inside(request.cwd, stateDir);
    if (!inSource) return run(request);
    counter.running += 1;
    counter.started += 1;
    try {
      return await run(request);
    } finally {
      counter.running -= 1;
    }
  };
}

/** Attempts started in this process: how busy the source was when each began. */
const startedWith = new Map<string, number>();

/** Before an agent starts: the source as it is, kept in the attempt's folder. */
export async function snapshotSource(ctx: DispatchContext, attemptDir: string): Promise<void> {
  const guard = ctx.options.sourceGuard;
  if (!guard) return;
  const snapshot = await guard.snapshot();
  writeOwnedFileBelow(
    ctx.workspace,
    join(attemptDir, SNAPSHOT_FILE),
    JSON.stringify(snapshot),
    'replace',
  );
  startedWith.set(attemptDir, ctx.sourceCommands.running > 0 ? -1 : ctx.sourceCommands.started);
}

/**
 * After an agent attempt (also one judged after a restart): what changed in the source since
 * its snapshot, outside what running tasks may change there, is put back and recorded on the
 * attempt (`sourceChanges`) and announced. Only reported, not put back, when a command of the
 * dispatcher also ran in the source meanwhile. Runs once per attempt: the snapshot goes after.
 */
export async function checkSource(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
): Promise<void> {
  const guard = ctx.options.sourceGuard;
  const file = join(record.attemptDir, SNAPSHOT_FILE);
  if (!guard || !existsSync(file)) return;
  const before = readSnapshot(file);
  const mark = startedWith.get(record.attemptDir);
  startedWith.delete(record.attemptDir);
  const busy =
    ctx.sourceCommands.running > 0 ||
    mark === -1 ||
    (mark !== undefined && mark !== ctx.sourceCommands.started);
  const keepDir = join(record.attemptDir, SOURCE_CHANGES_DIR);
  const changes = before
    ? await guard.check(before, { allowed: sharedWriteSets(ctx), restore: !busy, keepDir })
    : [];
  rmSync(file, { force: true });
  if (changes.length === 0) return;
  record.sourceChanges = changes;
  const restored = changes.every((c) => c.restored);
  ctx.bus.emit({
    type: 'attempt.source-changed',
    task: rt.id,
    attempt: record.id,
    role: record.role,
    files: changes.map((c) => c.path),
    restored,
    keptIn: keepDir,
    detail: restored
      ? `the ${record.role} changed ${changes.length} file(s) of the source checkout; put back as they were before the attempt (its versions are kept in ${keepDir})`
      : busy
        ? `${changes.length} file(s) of the source checkout changed while the ${record.role} ran beside a command of the dispatcher in the source; not put back`
        : `the ${record.role} changed ${changes.length} file(s) of the source checkout; some could not be put back (${changes
            .filter((c) => !c.restored)
            .map((c) => `${c.path}: ${c.why ?? 'unknown'}`)
            .join('; ')})`,
  });
}

/** The correction a worker gets for changing the source (undefined when it did not). */
export function sourceCorrection(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: AttemptRecord,
): Correction | undefined {
  const changes = record.sourceChanges ?? [];
  if (changes.length === 0) return undefined;
  const where = rt.state.isolation
    ? `your worktree ${rt.state.isolation.workdir}`
    : `the files of the plan's write set`;
  const files = changes.map((c) => c.path).join(', ');
  const back = changes.every((c) => c.restored)
    ? `they were put back as they were before your attempt (your versions are kept in ${join(record.attemptDir, SOURCE_CHANGES_DIR)})`
    : 'they are reported to the user';
  return {
    source: 'writeset',
    summary: `you changed files of the source checkout ${ctx.workspace} that you may not change: ${files}; ${back}. Change only ${where}`,
    evidence: changes.map((c) => `source changed: ${c.path}${c.restored ? ' (put back)' : ''}`),
  };
}

/** Write sets other tasks may be changing in the source now (tasks without a worktree). */
function sharedWriteSets(ctx: DispatchContext): Set<string> {
  const allowed = new Set<string>();
  for (const [path, holder] of ctx.claimIndex) {
    const task = ctx.tasks.get(holder);
    if (task && !task.state.isolation) allowed.add(path);
  }
  return allowed;
}

function readSnapshot(file: string): SourceSnapshot | undefined {
  try {
    const parsed = sourceSnapshotSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
