import { join, relative } from 'node:path';
import { ensureOwnedDir } from '../safe-fs/owned-files.js';
import { planFileName } from '../workspace/paths.js';
import { advance } from './advance.js';
import { correctOrBlock } from './apply-failure.js';
import { type DispatchContext, persist, type TaskRuntime } from './context.js';
import { runGateCheck } from './gate-check.js';
import { maxPlanLoopsOf } from './plan-loop-cap.js';
import { verifyChange } from './verify-change.js';
import { workdirOf } from './workdir.js';

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
  if (!done) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
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
    verify: (output) => verifyChange(ctx, rt, output),
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
