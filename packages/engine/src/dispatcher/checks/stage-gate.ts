import { join, relative } from 'node:path';
import { planFileName } from '@switchyard/core';
import { ensureOwnedDir } from '@switchyard/utils';
import { advance } from '../advance.js';
import { persist } from '../context.js';
import { maxPlanLoopsOf } from '../corrections/plan-loop-cap.js';
import { correctOrBlock } from '../landing/apply-failure.js';
import { writeGitStageRows } from '../landing/git-stage-rows.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import { runGateCheck } from './gate-check.js';
import { persistPassedCheck } from './passed-check.js';
import { verifyChange, verifyTestRun } from './verify-change.js';

export { judgeGate } from './judge-gate.js';

/**
 * Runs the plan's definition-of-done command (argv, no shell, in the workspace) through the
 * CLI's command runner. A pass moves on to review; a failure goes back to the worker as a
 * correction carrying the assertion, the output tail and the full output file. Ten
 * consecutive failed gates block the task.
 */
export async function runGateStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const done = rt.task.definitionOfDone;
  const state = rt.state;
  if (!done) return verifyWithoutCommand(ctx, rt);
  const dir = join(ctx.stateDir, 'gates', rt.id);
  ensureOwnedDir(ctx.workspace, dir);
  const id = `gate.${state.planLoop}.${Date.now().toString(36)}`;
  const outputFile = join(dir, `${id}.log`);
  const row = {
    task: rt.id,
    artifact: planFileName(state.planLoop),
    planLoop: state.planLoop,
    maxPlanLoops: maxPlanLoopsOf(rt),
    role: 'gate' as const,
    // Failed gates of this loop so far + 1 (a passed gate leaves the stage).
    attempt: String(state.failures.gate + 1),
    agentModel: done.command,
    locator: relative(ctx.workspace, outputFile),
  };
  ctx.workLog.finish(rt.group, { ...row, kind: 'START', time: ctx.now(), result: 'running' });
  const verdict = await runGateCheck(ctx, rt, {
    done,
    cwd: workdirOf(ctx, rt),
    outputFile,
    showOutput: true,
    verify: async (output) => [
      ...(await verifyChange(ctx, rt)),
      ...(rt.task.testsRequired ? verifyTestRun(output, 'definition-of-done') : []),
    ],
  });
  if (!verdict) {
    // stopped while the command ran: the gate runs again on the next run, with rows of its own
    ctx.workLog.finish(rt.group, {
      ...row,
      kind: 'FINISH',
      time: ctx.now(),
      result: 'interrupted',
    });
    return;
  }
  const { result, findings } = verdict;
  ctx.workLog.finish(rt.group, {
    ...row,
    kind: 'FINISH',
    time: ctx.now(),
    result: verdict.passed ? 'success' : 'gate-failed',
  });
  if (verdict.passed) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  correctOrBlock(ctx, rt, {
    stage: 'gate',
    correction: {
      source: 'gate',
      summary: `the definition-of-done command \`${done.command}\` failed: ${verdict.why}.`,
      evidence: [...findings, ...result.tail.slice(-40)],
      file: outputFile,
    },
    blockReason: (n) => `${n} consecutive failed definition-of-done gates (${verdict.why})`,
    blockEvidence: [
      `command: ${done.command}`,
      ...findings,
      ...result.tail.slice(-20),
      `output: ${outputFile}`,
    ],
  });
  await persist(ctx, rt);
}

/**
 * A plan without a definition of done: the gate stage still verifies the change (stubs in
 * its added lines, a test file under `tests: required`; the test run itself is judged on the
 * project's test gate). A finding goes back to the worker as a correction, like a failed gate.
 * Its START and FINISH rows are written together with the result, like a git stage's.
 */
async function verifyWithoutCommand(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const state = rt.state;
  const startedAt = ctx.now();
  const findings = await verifyChange(ctx, rt);
  writeGitStageRows(ctx, rt, {
    role: 'gate',
    startedAt,
    artifact: planFileName(state.planLoop),
    label: 'change verification (no definition of done)',
    result: findings.length === 0 ? 'success' : 'gate-failed',
    evidence: { planLoop: state.planLoop, findings },
  });
  if (findings.length === 0) {
    advance(rt, 'passed');
    return persistPassedCheck(ctx, rt);
  }
  const why = `the change does not verify: ${findings.length} finding(s)`;
  ctx.bus.emit({
    type: 'gate.finished',
    task: rt.id,
    planLoop: state.planLoop,
    command: [],
    exitCode: null,
    passed: false,
    detail: why,
    output: findings,
  });
  correctOrBlock(ctx, rt, {
    stage: 'gate',
    correction: { source: 'gate', summary: `${why}.`, evidence: findings },
    blockReason: (n) => `${n} consecutive failed change verifications (${why})`,
  });
  await persist(ctx, rt);
}
