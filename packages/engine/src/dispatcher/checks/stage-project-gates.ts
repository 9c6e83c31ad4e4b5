import { join, relative } from 'node:path';
import { type ProjectGateResult, planFileName } from '@switchyard/core';
import { type ProjectGate, testGateOf } from '@switchyard/tasks';
import { advance } from '../advance.js';
import { persist } from '../context.js';
import { correctOrBlock } from '../landing/apply-failure.js';
import type { DispatchContext, DispatcherOptions, TaskRuntime } from '../types.js';
import { workdirOf } from '../worktree/workdir.js';
import { runProjectGates } from './gate-check.js';
import { verifyTestRun } from './verify-change.js';

/** The gates the project-gates stage runs: `task` gates, and `source` gates too when the
 * working tree is the source (isolation `none`, or a `runner: local` task, which runs in the
 * source). Under worktree isolation the `source` gates run after apply (./source-gates.ts). */
export function taskStageGates(
  options: DispatcherOptions,
  task?: { runner?: string },
): ProjectGate[] {
  const sameTree =
    task?.runner === 'local' || (options.sourceIsWorkingTree ?? options.isolation === undefined);
  return (options.projectGates ?? []).filter((g) => g.on === 'task' || sameTree);
}

/**
 * Runs the project's gates (config `gates`) after the task's own definition of done, in the
 * same directory the definition of done runs in. Each gate's result is kept in the task
 * state (status, the monitor and `complete.log` show it) and announced as `gate.finished`.
 * All passed: on to review. Any failed: back to the worker with a correction naming the
 * failed gates, counted against the stage's budget; a full budget blocks the task.
 */
export async function runProjectGatesStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const gates = taskStageGates(ctx.options, rt.task);
  const state = rt.state;
  if (gates.length === 0) {
    advance(rt, 'passed', { facts: { hasProjectGates: false } });
    return persist(ctx, rt);
  }
  const outputDir = join(ctx.stateDir, 'gates', rt.id);
  const row = {
    task: rt.id,
    artifact: planFileName(state.planLoop),
    planLoop: state.planLoop,
    role: 'project-gates' as const,
    attempt: String(state.failures['project-gates'] + 1),
    agentModel: gates.map((g) => g.name).join(', '),
    locator: relative(ctx.workspace, outputDir),
  };
  ctx.workLog.finish(rt.group, { ...row, kind: 'START', time: ctx.now(), result: 'running' });
  // Task gates run in the task's working tree (its worktree under isolation, else the
  // workspace); source gates, here only when the working tree is the source, in the workspace.
  const runs = await runProjectGates(
    ctx,
    rt,
    [...gates.filter((g) => g.on === 'task'), ...gates.filter((g) => g.on === 'source')],
    {
      cwdOf: (g) => (g.on === 'task' ? workdirOf(ctx, rt) : ctx.workspace),
      base: ctx.workspace,
      outputDir,
      // `tests: required` without a definition of done: the test gate is the test run judged.
      ...(rt.task.testsRequired && !rt.task.definitionOfDone
        ? {
            verifyOf: (g: ProjectGate) =>
              g.name === testGateOf(gates)?.name
                ? (output: string) => verifyTestRun(output, `test gate ${g.name}`)
                : undefined,
          }
        : {}),
    },
  );
  if (!runs || ctx.signal.aborted) {
    ctx.workLog.finish(rt.group, {
      ...row,
      kind: 'FINISH',
      time: ctx.now(),
      result: 'interrupted',
    });
    return;
  }
  const results = runs.map((r) => r.result);
  recordResults(rt, results);
  const failed = runs.filter((r) => !r.result.passed);
  ctx.workLog.finish(rt.group, {
    ...row,
    kind: 'FINISH',
    time: ctx.now(),
    result: failed.length === 0 ? 'success' : 'gate-failed',
  });
  if (failed.length === 0) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  const names = failed.map((r) => r.result.name).join(', ');
  const why = failed.map((r) => `${r.result.name}: ${r.result.detail}`).join('; ');
  const evidence = failed.flatMap((r) => [
    `project gate ${r.result.name} (\`${r.command}\`) — full output: ${r.result.output}`,
    ...r.tail.slice(-20),
  ]);
  const first = failed[0]!;
  correctOrBlock(ctx, rt, {
    stage: 'project-gates',
    correction: {
      source: 'project-gates',
      summary: `the project gate${failed.length > 1 ? 's' : ''} ${names} failed (${why}). The project requires ${failed.length > 1 ? 'them' : 'it'} to pass after every task; fix the cause in your work.`,
      evidence,
      file: join(ctx.workspace, first.result.output),
    },
    blockReason: (n) => `${n} consecutive failed project gate rounds (${why})`,
  });
  await persist(ctx, rt);
}

/** Keeps the latest result of each gate by name. */
export function recordResults(rt: TaskRuntime, results: readonly ProjectGateResult[]): void {
  const byName = new Map((rt.state.gates ?? []).map((g) => [g.name, g]));
  for (const r of results) byName.set(r.name, r);
  rt.state.gates = [...byName.values()];
}
