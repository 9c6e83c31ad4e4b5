import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { planFileName } from '@switchyard/core';
import { maskSecretsInFile, redactSecrets } from '@switchyard/runner-kit';
import {
  buildCorrectionPacket,
  type FailingOutput,
  failingLines,
  findingsToFix,
  type ParsedReview,
} from '@switchyard/tasks';
import { readBoundedFile, writeOwnedFile } from '@switchyard/utils';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { reviewFiles } from './review-judge.js';

/** Where the reviewer's own follow-up plan is kept once the packet replaces it. */
export function reviewerPlanFile(nextPlanFile: string): string {
  return nextPlanFile.replace(/\.md$/, '.reviewer.md');
}

/**
 * Rewrites the reviewer's `PLAN-<N+1>.md` as a correction packet (see
 * `buildCorrectionPacket`): only the findings to fix with their evidence, the exact failing
 * output of this loop's last definition-of-done run for CRITICAL findings, and the files
 * involved. The reviewer's plan is kept beside it as `PLAN-<N+1>.reviewer.md`; a restart
 * rebuilds the packet from that copy, so the step is idempotent.
 */
export function writeCorrectionPacket(
  ctx: DispatchContext,
  rt: TaskRuntime,
  review: ParsedReview,
): void {
  const { nextPlanFile } = reviewFiles(rt);
  const keptCopy = reviewerPlanFile(nextPlanFile);
  if (!existsSync(keptCopy)) renameSync(nextPlanFile, keptCopy);
  const reviewerPlan = readFileSync(keptCopy, 'utf8');
  const packet = buildCorrectionPacket({
    task: rt.id,
    reviewedLoop: rt.state.planLoop,
    reviewFile: basename(reviewFiles(rt).reviewFile),
    findings: findingsToFix(review),
    reviewerPlan,
    failingOutput: gateFailingOutput(ctx, rt),
  });
  writeOwnedFile(nextPlanFile, redactSecrets(packet, ctx.secrets), 'replace');
  maskSecretsInFile(keptCopy, ctx.secrets);
}

/**
 * The failing lines of the newest definition-of-done output of this plan loop (gate logs
 * are `gates/<task>/gate.<loop>.<time>.log`), verbatim; none when it has no failing line.
 */
export function gateFailingOutput(ctx: DispatchContext, rt: TaskRuntime): FailingOutput[] {
  const dir = join(ctx.stateDir, 'gates', rt.id);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const prefix = `gate.${rt.state.planLoop}.`;
  const newest = names
    .filter((n) => n.startsWith(prefix) && n.endsWith('.log'))
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .at(-1);
  if (!newest) return [];
  const file = join(dir, newest);
  const read = readBoundedFile(file, { maxBytes: 4 * 1024 * 1024 });
  if (!read.ok) return [];
  const lines = failingLines(read.text.split('\n'));
  if (lines.length === 0) return [];
  const command = rt.task.definitionOfDone?.command;
  return [
    {
      source: `the definition-of-done run${command ? ` \`${command}\`` : ''} of plan loop ${rt.state.planLoop} (${relative(ctx.workspace, file)})`,
      lines,
    },
  ];
}

/**
 * A minor-only review needs no follow-up plan; one the reviewer wrote anyway is set aside
 * (`PLAN-<N+1>.declined.md`) so the task's plan loop does not move.
 */
export function setAsideNextPlan(rt: TaskRuntime): void {
  const { nextPlanFile } = reviewFiles(rt);
  if (!existsSync(nextPlanFile)) return;
  renameSync(
    nextPlanFile,
    join(rt.task.dir, `${basename(planFileName(rt.state.planLoop + 1), '.md')}.declined.md`),
  );
}
