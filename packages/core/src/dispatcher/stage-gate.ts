import { join, relative } from 'node:path';
import { maskSecretsInFile } from '../redact/secret-set.js';
import { ensureOwnedDir } from '../safe-fs/owned-files.js';
import { STAGE_FAILURE_BUDGET } from '../selection/on-failure.js';
import { assertionText } from '../task/assertion-text.js';
import type { DefinitionOfDone } from '../task/types.js';
import { planFileName } from '../workspace/paths.js';
import { advance } from './advance.js';
import { blockTask } from './apply-failure.js';
import { type DispatchContext, persist, type TaskRuntime } from './context.js';
import { maxPlanLoopsOf } from './plan-loop-cap.js';
import type { CommandResult } from './types.js';
import { workdirOf } from './workdir.js';

/** Output lines of a gate command kept in its event (the whole output is in its file). */
const GATE_OUTPUT_LINES = 20;

import { verifyChange } from './verify-change.js';

/** True when the command result satisfies the plan's assertion; else why not. */
export function judgeGate(
  done: DefinitionOfDone,
  result: CommandResult,
): { passed: boolean; why: string } {
  if (result.spawnError)
    return { passed: false, why: `the command could not start: ${result.spawnError}` };
  if (result.timedOut) return { passed: false, why: 'the command timed out' };
  const a = done.assertion;
  if (a.kind === 'exit-code') {
    const passed = result.exitCode === a.code;
    const got =
      result.exitCode === null ? `signal ${result.signal}` : `exit code ${result.exitCode}`;
    return {
      passed,
      why: passed ? `exit code ${a.code}` : `expected exit code ${a.code}, got ${got}`,
    };
  }
  if (a.kind === 'stdout-contains') {
    const passed = result.stdout.includes(a.text);
    return {
      passed,
      why: passed ? `stdout contains "${a.text}"` : `stdout does not contain "${a.text}"`,
    };
  }
  const passed = new RegExp(a.pattern).test(result.stdout);
  return {
    passed,
    why: passed ? `stdout matches /${a.pattern}/` : `stdout does not match /${a.pattern}/`,
  };
}

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
  const result = await ctx.options.runCommand({
    argv: done.argv,
    cwd: workdirOf(ctx, rt),
    outputFile,
    signal: ctx.signal,
  });
  // The gate log keeps what the command printed: also hide the catalog's `${VAR}` values.
  maskSecretsInFile(outputFile, ctx.secrets);
  if (ctx.signal.aborted) return;
  const verdict = judgeGate(done, result);
  // A passed gate still fails when the change does not verify (stubs, missing tests).
  const findings = verdict.passed ? await verifyChange(ctx, rt, outputFile) : [];
  if (findings.length > 0) {
    verdict.passed = false;
    verdict.why = `the change does not verify: ${findings.length} finding(s)`;
  }
  ctx.workLog.finish(rt.group, {
    ...row,
    kind: 'FINISH',
    time: ctx.now(),
    result: verdict.passed ? 'success' : 'gate-failed',
  });
  ctx.bus.emit({
    type: 'gate.finished',
    task: rt.id,
    planLoop: state.planLoop,
    command: [...done.argv],
    exitCode: result.exitCode,
    passed: verdict.passed,
    detail: verdict.why,
    assertion: assertionText(done.assertion),
    output: result.tail.slice(-GATE_OUTPUT_LINES),
  });
  if (verdict.passed) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  if (state.failures.gate + 1 >= STAGE_FAILURE_BUDGET) {
    state.failures.gate += 1;
    blockTask(ctx, rt, {
      stage: 'gate',
      reason: `${state.failures.gate} consecutive failed definition-of-done gates (${verdict.why})`,
      evidence: [
        `command: ${done.command}`,
        ...findings,
        ...result.tail.slice(-20),
        `output: ${outputFile}`,
      ],
    });
    return persist(ctx, rt);
  }
  advance(rt, 'gate-failed', {
    correction: {
      source: 'gate',
      summary: `the definition-of-done command \`${done.command}\` failed: ${verdict.why}.`,
      evidence: [...findings, ...result.tail.slice(-40)],
      file: outputFile,
    },
  });
  await persist(ctx, rt);
}
