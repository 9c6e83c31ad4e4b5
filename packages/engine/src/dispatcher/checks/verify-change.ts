import { readBoundedFile } from '@switchyard/utils';
import { findStubs, isTestFile } from '../../verification/stub-detector.js';
import { readTestSummary } from '../../verification/test-summary.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { taskChange } from './task-change.js';

/**
 * Verification of a change, not trust, on the task's diff ({@link taskChange}): stubs in the
 * lines it added are CRITICAL findings (an old `TODO` in a touched file is not); under
 * `tests: required` the change must add or change a test file. Run by the gate stage, with or
 * without a definition of done. Returns the findings (`[CRITICAL] …` lines), empty when the
 * change is verified.
 */
export async function verifyChange(ctx: DispatchContext, rt: TaskRuntime): Promise<string[]> {
  const findings: string[] = [];
  const changed = await taskChange(ctx, rt);
  for (const file of changed)
    for (const stub of findStubs(file.path, file.added))
      findings.push(`[CRITICAL] stub left in the change: ${stub.file}:${stub.line}: ${stub.text}`);
  if (rt.task.testsRequired && !changed.some((f) => isTestFile(f.path))) {
    findings.push(
      `[CRITICAL] tests: required, but the change adds or changes no test file (changed: ${changed.map((f) => f.path).join(', ') || 'none'})`,
    );
  }
  return findings;
}

/**
 * Under `tests: required`, the output of the command that ran the tests (the definition of
 * done, or the project's test gate when the plan has none) must show its runner ran at least
 * one test. Returns the findings, empty when it does.
 */
export function verifyTestRun(outputFile: string, what: string): string[] {
  const read = readBoundedFile(outputFile, { maxBytes: 8 * 1024 * 1024 });
  const summary = read.ok ? readTestSummary(read.text.split('\n')) : undefined;
  if (!summary)
    return [
      `[CRITICAL] tests: required, but the ${what} output has no test summary (vitest, jest, node --test, pytest, go test, cargo test)`,
    ];
  if (summary.tests === 0)
    return [
      `[CRITICAL] tests: required, but the ${summary.runner} run reports zero tests: ${summary.lines.join(' / ').trim()}`,
    ];
  return [];
}
