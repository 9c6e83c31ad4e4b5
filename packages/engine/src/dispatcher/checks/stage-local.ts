import { join, relative } from 'node:path';
import { planFileName } from '@switchyard/core';
import { maskSecretsInFile } from '@switchyard/runner-kit';
import { ensureOwnedDir } from '@switchyard/utils';
import { advance } from '../advance.js';
import { persist } from '../context.js';
import { blockTask } from '../landing/apply-failure.js';
import type { DispatchContext, TaskRuntime } from '../types.js';

/** The argv a local task runs: its command, or `/bin/sh -c <script>` when the plan says `shell: true`. */
export function localArgv(task: { command?: string[]; shell?: boolean }): string[] {
  const command = task.command ?? [];
  return task.shell ? ['/bin/sh', '-c', command.join(' ')] : [...command];
}

// One chain per dispatcher run: work on the source workspace happens one piece at a time.
const sourceQueues = new WeakMap<DispatchContext, Promise<unknown>>();

/**
 * Runs `work` once every earlier piece of source-workspace work of this run has finished:
 * local commands run in the source workspace itself, so they never overlap each other (or,
 * through this same queue, a source apply).
 */
export function serializeSourceWork<T>(ctx: DispatchContext, work: () => Promise<T>): Promise<T> {
  const previous = sourceQueues.get(ctx) ?? Promise.resolve();
  const next = previous.then(work, work);
  sourceQueues.set(
    ctx,
    next.catch(() => {}),
  );
  return next;
}

/**
 * The worker stage of a `runner: local` task: its command runs in the source workspace (argv,
 * no shell unless the PLAN says `shell: true`), serialized with other source work, with
 * START/FINISH work-log rows and a `local.finished` event. Exit 0 moves on (to the definition
 * of done when there is one, then the archive: no review for a command). A failure blocks the
 * task at once with its output as evidence: a deterministic command fails the same way again.
 */
export async function runLocalStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const state = rt.state;
  const argv = localArgv(rt.task);
  const dir = join(ctx.stateDir, 'local', rt.id);
  ensureOwnedDir(ctx.workspace, dir);
  const outputFile = join(dir, `local.${state.planLoop}.${Date.now().toString(36)}.log`);
  const shown = rt.task.shell ? `sh -c ${JSON.stringify(argv[2])}` : argv.join(' ');
  const row = {
    task: rt.id,
    artifact: planFileName(state.planLoop),
    planLoop: state.planLoop,
    role: 'worker' as const,
    attempt: String(state.failures.worker + 1),
    agentModel: `local: ${shown}`,
    locator: relative(ctx.workspace, outputFile),
  };
  const result = await serializeSourceWork(ctx, async () => {
    ctx.workLog.finish(rt.group, { ...row, kind: 'START', time: ctx.now(), result: 'running' });
    return ctx.options.runCommand({
      argv,
      cwd: ctx.workspace,
      outputFile,
      signal: ctx.signal,
    });
  });
  maskSecretsInFile(outputFile, ctx.secrets);
  if (ctx.signal.aborted) return;
  const passed = !result.spawnError && !result.timedOut && result.exitCode === 0;
  const detail = result.spawnError
    ? `the command could not start: ${result.spawnError}`
    : result.timedOut
      ? 'the command timed out'
      : result.exitCode === null
        ? `ended by signal ${result.signal}`
        : `exit code ${result.exitCode}`;
  ctx.workLog.finish(rt.group, {
    ...row,
    kind: 'FINISH',
    time: ctx.now(),
    result: passed ? 'success' : 'generic-error',
  });
  ctx.bus.emit({
    type: 'local.finished',
    task: rt.id,
    planLoop: state.planLoop,
    command: argv,
    shell: rt.task.shell === true,
    exitCode: result.exitCode,
    passed,
    detail,
  });
  if (passed) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  state.failures.worker += 1;
  blockTask(ctx, rt, {
    stage: 'worker',
    reason: `local command failed (${detail}): ${shown}`,
    evidence: [`command: ${shown}`, ...result.tail.slice(-20), `output: ${outputFile}`],
  });
  await persist(ctx, rt);
}
