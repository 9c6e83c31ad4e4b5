import { join } from 'node:path';
import { planFileName } from '@switchyard/core';
import { parseReview, reviewDisposition } from '@switchyard/tasks';
import { maxPlanBytes, readBoundedFile } from '@switchyard/utils';
import { phaseLabel } from '../../lifecycle/index.js';
import { acceptChecklist } from '../../selfcheck/accept-checklist.js';
import { loopReviewFiles } from '../agent/fixup-notes.js';
import { currentChecklist } from '../agent/stage-selfcheck.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/**
 * The completion promise, checked before anything lands (the promise stage runs before the
 * apply and the archive): what the dispatcher itself verified of the work as it is now —
 *
 * - the write-set check, the definition of done (or, without one, the change verification)
 *   and the project's gates passed on the current work (`state.work`, bumped by every
 *   worker, self-check and fixup pass; each check records the work it passed on);
 * - each required review of this plan loop (the red-team one under `review: red-team`; none
 *   for `runner: local`) approved the work it was shown (before a fixup applied its MINOR
 *   findings), and its file says so;
 * - where the worker's completing target requires a self-check, it was accepted on that work
 *   and the checklist is complete.
 *
 * A checklist item left open without a required self-check is no part of it (see
 * {@link openChecklistNotes}). A state written before the records were kept is judged on its
 * files only. Returns the unmet parts, empty when the promise holds.
 */
export function brokenPromises(ctx: DispatchContext, rt: TaskRuntime): string[] {
  const state = rt.state;
  const local = rt.task.runner === 'local';
  const broken: string[] = [];
  const work = state.work;
  // The work the reviews (and a self-check) judged: before a fixup of this loop changed it.
  const judged = state.fixup?.planLoop === state.planLoop ? state.fixup.work : work;
  const need = (stage: string, at: number | undefined, what: string) => {
    if (work === undefined) return; // a state from before these records: its files decide
    const passed = state.verified?.[stage];
    if (passed === at) return;
    broken.push(
      passed === undefined
        ? `${what} never passed in this task's records`
        : `${what} passed on earlier work (#${passed}); the files changed since (now #${at})`,
    );
  };
  if (!local) need('writeset', work, 'the write-set check');
  const done = rt.task.definitionOfDone;
  if (done) need('gate', work, `the definition of done \`${done.command}\``);
  else if (!local) need('gate', work, 'the change verification (stubs, tests)');
  if (rt.hasProjectGates) need('project-gates', work, 'the project gates');
  if (selfcheckRequired(ctx, rt)) {
    need('selfcheck', judged, 'the required self-check');
    const check = acceptChecklist(currentChecklist(rt));
    if (!check.accepted)
      broken.push(
        `${planFileName(state.planLoop)}: the required self-check's checklist is not complete (${check.reason})`,
      );
  }
  if (local) return broken;
  for (const name of loopReviewFiles(rt)) {
    const stage = name.includes('.red-team.') ? 'redteam' : 'review';
    need(stage, judged, `the ${phaseLabel(stage)} (${name})`);
    const read = readBoundedFile(join(rt.task.dir, name), { maxBytes: maxPlanBytes() });
    if (!read.ok) {
      broken.push(`${name}: no approving review (${read.reason})`);
      continue;
    }
    const review = parseReview(read.text);
    const disposition = reviewDisposition(review);
    if (
      review.problems.length > 0 ||
      (disposition !== 'approved' && disposition !== 'approved-with-notes')
    )
      broken.push(`${name}: the review of plan loop ${state.planLoop} did not approve`);
  }
  return broken;
}

/**
 * Whether the target that completed the worker stage of this plan loop declares
 * `selfcheck_required` (the completing decision, not a fixed agent, decides).
 */
export function selfcheckRequired(ctx: DispatchContext, rt: TaskRuntime): boolean {
  const last = rt.state.attempts.findLast(
    (a) => a.role === 'worker' && a.planLoop === rt.state.planLoop && a.result === 'success',
  );
  return last !== undefined && ctx.catalog.targets[last.target]?.selfcheck_required === true;
}

/**
 * Checklist items of the current plan left open where no self-check was required: not a
 * block, but shown to the reviewer and listed in `complete.log` (`PLAN.md:12: text`).
 */
export function openChecklistNotes(ctx: DispatchContext, rt: TaskRuntime): string[] {
  if (rt.task.runner === 'local' || selfcheckRequired(ctx, rt)) return [];
  const plan = planFileName(rt.state.planLoop);
  return currentChecklist(rt)
    .filter((i) => !i.checked || i.text.trim() === '')
    .map((i) => `${plan}:${i.line}: ${i.text.trim() || '(empty item)'}`);
}
