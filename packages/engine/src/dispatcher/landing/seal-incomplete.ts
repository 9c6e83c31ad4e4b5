import { basename, join } from 'node:path';
import { planFileName } from '@switchyard/core';
import { redactSecrets } from '@switchyard/runner-kit';
import type { ParsedReview } from '@switchyard/tasks';
import { writeOwnedFile } from '@switchyard/utils';
import { reviewFiles } from '../agent/review-judge.js';
import { maxPlanLoopsOf } from '../corrections/plan-loop-cap.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { blockTask } from './apply-failure.js';

/** The file a task sealed incomplete carries in its (never archived) folder. */
export const BLOCKING_NOTES = 'BLOCKING_NOTES.md';

/**
 * The last allowed plan loop ended with changes requested: the task is sealed incomplete,
 * never archived as done. Its folder gets `BLOCKING_NOTES.md` (the open findings and how
 * to go on) and the task blocks with the findings as evidence.
 */
export function sealIncomplete(ctx: DispatchContext, rt: TaskRuntime, review: ParsedReview): void {
  const state = rt.state;
  const cap = maxPlanLoopsOf(rt);
  const reviewName = basename(reviewFiles(rt).reviewFile);
  const findings = review.findings.map((f) => `${reviewName}:${f.line}: [${f.severity}] ${f.text}`);
  const notes = [
    `# Blocking notes: ${rt.id}`,
    '',
    `Sealed incomplete at ${ctx.now().toISOString()}: plan loop ${state.planLoop} of ${cap} ended with changes requested, so the task is not archived as done.`,
    '',
    'A task is archived only when its checklist is complete, its definition of done passed and every required review approved.',
    '',
    '## Open findings',
    '',
    ...findings.map((f) => `- ${f}`),
    '',
    '## To go on',
    '',
    `Raise \`max_plan_loops\` in ${planFileName(1)} above ${cap} and run \`switchyard retry ${rt.id}\`: plan loop ${state.planLoop + 1} starts from ${planFileName(state.planLoop + 1)}.`,
    '',
  ].join('\n');
  writeOwnedFile(join(rt.task.dir, BLOCKING_NOTES), redactSecrets(notes, ctx.secrets), 'replace');
  state.failures.review = 0;
  blockTask(ctx, rt, {
    stage: 'plan-loop-cap',
    reason: `review ${state.planLoop} requested changes but max_plan_loops (${cap}) is reached: sealed incomplete at plan loop ${state.planLoop} of ${cap}`,
    evidence: findings,
  });
}
