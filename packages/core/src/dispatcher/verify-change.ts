import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readBoundedFile } from '../safe-fs/bounded-read.js';
import { findStubs, isTestFile } from '../verification/stubs.js';
import { readTestSummary } from '../verification/test-summary.js';
import type { DispatchContext, TaskRuntime } from './context.js';

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
 * Verification of a change whose definition of done passed, not trust: stubs left in the
 * changed files are CRITICAL findings; under `tests: required` the change must add or change
 * a test file and the definition-of-done output must show its runner ran at least one test.
 * Returns the findings (`[CRITICAL] …` lines), empty when the change is verified.
 */
export function verifyChange(ctx: DispatchContext, rt: TaskRuntime, gateOutput: string): string[] {
  const findings: string[] = [];
  const changed = changedFiles(ctx, rt);
  for (const path of changed) {
    const read = readBoundedFile(join(ctx.workspace, path), { maxBytes: 2 * 1024 * 1024 });
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
