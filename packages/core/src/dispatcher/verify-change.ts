import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readBoundedFile } from '../safe-fs/bounded-read.js';
import { findStubs, isTestFile } from '../verification/stub-detector.js';
import { readTestSummary } from '../verification/test-summary.js';
import type { DispatchContext, TaskRuntime } from './context.js';
import { isolationOf } from './task-worktree.js';
import { workdirOf } from './workdir.js';

/**
 * Files of the task's write set changed by its attempts: with no diff to read (shared
 * workspace, no git), those modified since the task's first attempt started.
 */
export function changedFiles(ctx: DispatchContext, rt: TaskRuntime): string[] {
  const first = rt.state.attempts[0];
  if (!first) return [];
  const since = Date.parse(first.startedAt);
  return rt.task.writeSet
    .map((e) => e.path)
    .filter((path) => {
      const stat = statSync(join(ctx.workspace, path), { throwIfNoEntry: false });
      return stat?.isFile() === true && stat.mtimeMs >= since;
    });
}

/**
 * The task's change and where its files are: under worktree isolation the worktree's git diff
 * against its base (commits the agent made included; deleted files left out, a deletion adds
 * no test), read in the worktree; else {@link changedFiles} in the shared workspace.
 */
async function taskChange(
  ctx: DispatchContext,
  rt: TaskRuntime,
): Promise<{ files: string[]; dir: string }> {
  const isolation = isolationOf(ctx);
  if (!isolation || !rt.state.isolation)
    return { files: changedFiles(ctx, rt), dir: ctx.workspace };
  const dir = workdirOf(ctx, rt);
  const report = await isolation.inspect(
    rt.id,
    rt.task.writeSet.map((e) => e.path),
  );
  const files = report.changed.filter(
    (path) => statSync(join(dir, path), { throwIfNoEntry: false })?.isFile() === true,
  );
  return { files, dir };
}

/**
 * Verification of a change whose definition of done passed, not trust: stubs left in the
 * changed files are CRITICAL findings; under `tests: required` the change must add or change
 * a test file and the definition-of-done output must show its runner ran at least one test.
 * Returns the findings (`[CRITICAL] …` lines), empty when the change is verified.
 */
export async function verifyChange(
  ctx: DispatchContext,
  rt: TaskRuntime,
  gateOutput: string,
): Promise<string[]> {
  const findings: string[] = [];
  const { files: changed, dir } = await taskChange(ctx, rt);
  for (const path of changed) {
    const read = readBoundedFile(join(dir, path), { maxBytes: 2 * 1024 * 1024 });
    if (!read.ok) continue;
    for (const stub of findStubs(path, read.text))
      findings.push(`[CRITICAL] stub left in the change: ${stub.file}:${stub.line}: ${stub.text}`);
  }
  if (!rt.task.testsRequired) return findings;
  if (!changed.some(isTestFile)) {
    findings.push(
      `[CRITICAL] tests: required, but the change adds or changes no test file (changed: ${changed.join(', ') || 'none'})`,
    );
  }
  const read = readBoundedFile(gateOutput, { maxBytes: 8 * 1024 * 1024 });
  const summary = read.ok ? readTestSummary(read.text.split('\n')) : undefined;
  if (!summary) {
    findings.push(
      '[CRITICAL] tests: required, but the definition-of-done output has no test summary (vitest, jest, node --test, pytest, go test, cargo test)',
    );
  } else if (summary.tests === 0) {
    findings.push(
      `[CRITICAL] tests: required, but the ${summary.runner} run reports zero tests: ${summary.lines.join(' / ').trim()}`,
    );
  }
  return findings;
}
