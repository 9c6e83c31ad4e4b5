import type { ChecklistItem } from '@switchyard/core';
import { readChecklist, readPlanText } from '@switchyard/tasks';
import { decisionKeyOf } from '../../lifecycle/index.js';
import { buildPrompt } from '../../prompts/build-prompt.js';
import { acceptChecklist, SELFCHECK_RETRY_LIMIT } from '../../selfcheck/accept-checklist.js';
import { advance } from '../advance.js';
import { recordedChecklist } from '../corrections/plan-copy.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import { type AgentStage, runAgentStage } from './agent-stage.js';
import { attemptDirOf } from './attempt-spec.js';
import { ensureDecision } from './ensure-decision.js';
import { planNativeResume } from './native-resume.js';
import { currentPlan, promptContext } from './prompt-facts.js';
import { sentBackForSource } from './stage-worker.js';

/** The checklist of the task's current plan as the agents returned it (the dispatcher's record;
 * the task folder's file for a task without one). */
export function currentChecklist(rt: TaskRuntime): ChecklistItem[] {
  if (rt.state.plan) return recordedChecklist(rt);
  const plan = currentPlan(rt);
  const read = readPlanText(plan, plan); // bounded: a plan the worker swapped for a FIFO reads as empty
  return 'text' in read ? readChecklist(read.text, plan).items : [];
}

/** The latest native session of this plan loop that ended successfully on the target. */
export function latestSession(rt: TaskRuntime, target: string): string | undefined {
  for (let i = rt.state.attempts.length - 1; i >= 0; i--) {
    const a = rt.state.attempts[i]!;
    if (a.planLoop !== rt.state.planLoop || a.target !== target) continue;
    // The worker's own context only: not a review's, nor a fixup's (another target's work).
    if (decisionKeyOf(a.role) !== 'worker' || a.result !== 'success') continue;
    if (a.sessionId) return a.sessionId;
  }
  return undefined;
}

/**
 * One self-check pass on the worker's target. The first pass resumes the worker's native
 * context when the target can, else starts one; every retry (checklist still open) must
 * resume the latest successful native context: a target that cannot resume, or a context
 * that is gone, blocks the task instead of silently starting a new context.
 */
export const SELFCHECK_STAGE: AgentStage = {
  role: 'selfcheck',
  // The self-check stays on the worker's target: a cool-down there only makes it wait.
  holdsSharedTarget: true,
  changesFiles: false,
  decide: (ctx, rt) => ensureDecision(ctx, rt, 'worker'),
  async prepare(ctx, rt, { attemptId, decision, target }) {
    const canResume = target.runtime.resume_command !== undefined;
    const session = canResume ? latestSession(rt, decision.target) : undefined;
    const openItems = currentChecklist(rt).filter((i) => !i.checked || i.text.trim() === '');
    const prompt = buildPrompt({
      templates: ctx.options.prompts,
      context: promptContext(ctx, rt, 'selfcheck', attemptId),
      openItems: openItems.map((i) => `line ${i.line}: ${i.text || '(empty)'}`),
    });
    // The runner plugin plans the resume (and refuses a session of another workspace).
    const plan = session
      ? await planNativeResume(ctx, {
          targetId: decision.target,
          target,
          sessionId: session,
          attemptDir: attemptDirOf(ctx, attemptId),
          prompt,
          workdir: workdirOf(ctx, rt),
        })
      : undefined;
    if (plan && 'argv' in plan) return { prompt, resumeArgv: plan.argv };
    if (rt.state.selfcheckRetries === 0) return { prompt };
    const why = !canResume
      ? `target ${decision.target} cannot resume its native context`
      : plan && 'reason' in plan
        ? `its native context cannot be resumed: ${plan.reason}`
        : 'the native context to resume is gone';
    blockTask(ctx, rt, {
      stage: 'selfcheck',
      reason: `self-check left ${openItems.length} checklist item(s) open and ${why}`,
      evidence: openItems.map((i) => `line ${i.line}: [ ] ${i.text}`),
    });
    return undefined;
  },
  // -> the checks and reviews when the checklist is complete, else another pass or a block.
  onSuccess(ctx, rt, record) {
    if (sentBackForSource(ctx, rt, record, 'selfcheck')) return;
    const check = acceptChecklist(currentChecklist(rt));
    if (check.accepted) {
      advance(rt, 'passed');
      return;
    }
    advance(rt, 'checklist-open');
    if (rt.state.selfcheckRetries > SELFCHECK_RETRY_LIMIT) {
      blockTask(ctx, rt, {
        stage: 'selfcheck',
        reason: `self-check did not complete the checklist after ${SELFCHECK_RETRY_LIMIT} retries: ${check.reason}`,
        evidence: check.open.map((i) => `line ${i.line}: [${i.checked ? 'x' : ' '}] ${i.text}`),
      });
    }
  },
};

/** Runs one self-check pass and moves the task on. */
export function runSelfcheckStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  return runAgentStage(ctx, rt, SELFCHECK_STAGE);
}
