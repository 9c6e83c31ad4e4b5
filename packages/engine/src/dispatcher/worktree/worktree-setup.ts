import { join, relative } from 'node:path';
import type { WorkspaceIsolation, WorktreeRecord } from '@switchyard/core';
import { maskSecretsInFile, redactDeep } from '@switchyard/runner-kit';
import { quoteArgv } from '@switchyard/tasks';
import { writeOwnedFileBelow } from '@switchyard/utils';
import { persist } from '../context.js';
import { maxPlanLoopsOf } from '../corrections/plan-loop-cap.js';
import { blockTask } from '../landing/apply-failure.js';
import type { CommandResult, DispatchContext, TaskRuntime } from '../types.js';

/** Output lines of a failed set-up command kept in the block's evidence (all are in its file). */
const TAIL_LINES = 20;

/** How one set-up command ended, in the set-up's evidence file. */
interface SetupStep {
  command: readonly string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  output: string;
}

/**
 * A new worktree's set-up (config `isolation.setup`): each command in order, in the task's
 * workdir, through the CLI's command runner (argv, no shell), before the task's first stage
 * there. It runs once per worktree (the record's `setUpAt`), again when the worktree is
 * created anew; a failure blocks the task at once with the command, its exit and its output
 * tail — no agent is paid for a worktree that cannot be set up — and `switchyard retry` runs
 * the set-up again. Status shows the task "setting up" meanwhile (its state's `setup`), the
 * work log a `setup` row pair with the time it took. False when the stage must not run now
 * (blocked, or the run was interrupted: the next run sets the worktree up again).
 */
export async function setUpWorktree(
  ctx: DispatchContext,
  rt: TaskRuntime,
  record: WorktreeRecord,
): Promise<boolean> {
  const setup = ctx.options.worktreeSetup;
  const isolation = ctx.options.isolation;
  const facts = rt.state.isolation;
  if (!setup || setup.commands.length === 0 || record.setUpAt || !isolation || !facts) return true;
  const startedAt = ctx.now();
  const stamp = startedAt.getTime().toString(36);
  const dir = join(ctx.stateDir, 'gates', rt.id);
  const total = setup.commands.length;
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'setup',
    detail: `setting up ${record.workdir}: ${setup.commands.map((c) => quoteArgv(c)).join(' && ')}${record.copied?.length ? ` (copied ${record.copied.join(', ')})` : ''}`,
    ...(record.copied?.length ? { files: record.copied } : {}),
  });
  // What the worktree already holds (nothing, unless an agent worked in it before a set-up
  // was configured): the set-up's own changes are what it adds.
  const before = (await isolation.inspect(rt.id, [])).changed;
  const steps: SetupStep[] = [];
  for (const [i, command] of setup.commands.entries()) {
    facts.setup = {
      state: 'running',
      since: startedAt.toISOString(),
      command: [...command],
      index: i + 1,
      total,
    };
    await persist(ctx, rt);
    const output = join(dir, `setup.${stamp}.${i + 1}.log`);
    const began = Date.now();
    const result = await ctx.options.runCommand({
      argv: command,
      cwd: record.workdir,
      outputFile: output,
      env: { SWITCHYARD_TASK: rt.id, SWITCHYARD_SOURCE_WORKSPACE: ctx.workspace },
      timeoutMs: setup.timeoutMs,
      signal: ctx.signal,
    });
    maskSecretsInFile(output, ctx.secrets);
    if (ctx.signal.aborted) {
      // An interrupted set-up proves nothing: the next run starts it again.
      delete facts.setup;
      await persist(ctx, rt);
      return false;
    }
    steps.push({
      command,
      ...pick(result),
      durationMs: Date.now() - began,
      output: relative(ctx.workspace, output),
    });
    if (failed(result)) {
      await blockFailedSetup(ctx, rt, { startedAt, stamp, steps, record }, result, setup.timeoutMs);
      return false;
    }
  }
  const changed = await setupChanges(isolation, rt.id, before);
  if (changed.length > 0) {
    await blockChangingSetup(ctx, rt, { startedAt, stamp, steps, record }, changed);
    return false;
  }
  await isolation.markSetUp(rt.id);
  await passSetup(ctx, rt, { startedAt, stamp, steps, record });
  return true;
}

/**
 * Files the set-up changed that the task's commit would carry (a lockfile `npm install`
 * rewrote or created, generated sources git tracks) and git metadata it changed: taken for
 * the agent's work, they would be refused as outside the write set after every attempt (or
 * committed with the task under `write_set: any`). They are reset to the base (the metadata
 * was put back by the inspection already), so `retry` runs the set-up on a clean worktree.
 */
async function setupChanges(
  isolation: WorkspaceIsolation,
  taskId: string,
  before: readonly string[],
): Promise<string[]> {
  const report = await isolation.inspect(taskId, before);
  if (report.outside.length > 0) await isolation.revertOutside(taskId, before);
  return [...report.outside, ...report.gitMetadata];
}

/** The set-up passed but changed files a commit would carry: the task blocks before any agent. */
async function blockChangingSetup(
  ctx: DispatchContext,
  rt: TaskRuntime,
  run: SetupRun,
  changed: readonly string[],
): Promise<void> {
  const evidence = recordFailedSetup(ctx, rt, run);
  const files = changed.join(', ');
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'setup-failed',
    detail: `the set-up changed files the task's commit would carry: ${files}`,
    files: [...changed],
  });
  blockTask(ctx, rt, {
    stage: 'setup',
    reason: `the worktree set-up changed files the task's commit would carry: ${files} (reset in the worktree; they would be taken for the agent's work). Make the set-up leave them alone (\`npm ci\`, not \`npm install\`), or commit them or a .gitignore for them and run \`switchyard clean --blocked\` so the worktree starts from that commit; then \`switchyard retry ${rt.id}\` runs the set-up again`,
    evidence: [`evidence: ${evidence}`, ...changed.map((f) => `changed by the set-up: ${f}`)],
  });
  await persist(ctx, rt);
}

/** Marks the task's set-up failed and writes its evidence; returns the evidence file. */
function recordFailedSetup(ctx: DispatchContext, rt: TaskRuntime, run: SetupRun): string {
  const facts = rt.state.isolation!;
  facts.setup = {
    ...facts.setup!,
    state: 'failed',
    durationMs: ctx.now().getTime() - run.startedAt.getTime(),
  };
  return writeEvidence(ctx, rt, run.startedAt, run.stamp, run.steps, run.record, 'setup-failed');
}

/** A set-up under way: when it began, its evidence files' stamp, the commands that ran. */
interface SetupRun {
  startedAt: Date;
  stamp: string;
  steps: SetupStep[];
  record: WorktreeRecord;
}

/** The last step failed: the task blocks at once with the command, its exit and its output. */
async function blockFailedSetup(
  ctx: DispatchContext,
  rt: TaskRuntime,
  run: SetupRun,
  result: CommandResult,
  timeoutMs: number,
): Promise<void> {
  const step = run.steps.at(-1)!;
  const command = quoteArgv(step.command);
  const why = failure(result, timeoutMs);
  const evidence = recordFailedSetup(ctx, rt, run);
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'setup-failed',
    detail: `${command} ${why}`,
  });
  blockTask(ctx, rt, {
    stage: 'setup',
    reason: `the worktree set-up failed: ${command} ${why} (fix the command in isolation.setup or what it needs, then \`switchyard retry ${rt.id}\` runs the set-up again)`,
    evidence: [
      `output: ${step.output}`,
      `evidence: ${evidence}`,
      ...result.tail.slice(-TAIL_LINES),
    ],
  });
  await persist(ctx, rt);
}

/** Every step passed: recorded (state, evidence file, event). */
async function passSetup(ctx: DispatchContext, rt: TaskRuntime, run: SetupRun): Promise<void> {
  const total = run.steps.length;
  const durationMs = ctx.now().getTime() - run.startedAt.getTime();
  rt.state.isolation!.setup = {
    state: 'passed',
    since: run.startedAt.toISOString(),
    total,
    durationMs,
  };
  await persist(ctx, rt);
  writeEvidence(ctx, rt, run.startedAt, run.stamp, run.steps, run.record, 'success');
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'setup-passed',
    detail: `set up in ${(durationMs / 1000).toFixed(1)} s: ${total} command(s) passed`,
  });
}

const pick = (r: CommandResult) => ({
  exitCode: r.exitCode,
  signal: r.signal,
  timedOut: r.timedOut,
});

const failed = (r: CommandResult) => r.exitCode !== 0 || r.timedOut || r.spawnError !== undefined;

function failure(r: CommandResult, timeoutMs: number): string {
  if (r.spawnError) return `could not start (${r.spawnError})`;
  if (r.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)} s`;
  return r.exitCode !== null ? `exited ${r.exitCode}` : `was killed by ${r.signal}`;
}

/**
 * The set-up's evidence (every command: exit, time, output file) and its START/FINISH rows in
 * the group's work log, START at the time the set-up began. Returns the evidence file,
 * workspace-relative.
 */
function writeEvidence(
  ctx: DispatchContext,
  rt: TaskRuntime,
  startedAt: Date,
  stamp: string,
  steps: readonly SetupStep[],
  record: WorktreeRecord,
  result: string,
): string {
  const file = join(ctx.stateDir, 'gates', rt.id, `setup.${stamp}.json`);
  const evidence = {
    task: rt.id,
    role: 'setup',
    result,
    worktree: record.path,
    copied: record.copied ?? [],
    copySkipped: record.copySkipped ?? [],
    steps,
  };
  writeOwnedFileBelow(
    ctx.workspace,
    file,
    `${JSON.stringify(redactDeep(evidence, ctx.secrets), null, 2)}\n`,
    'replace',
  );
  const locator = relative(ctx.workspace, file);
  const cells = {
    task: rt.id,
    artifact: `setup: ${steps.length} command(s)`,
    planLoop: rt.state.planLoop,
    maxPlanLoops: maxPlanLoopsOf(rt),
    role: 'setup' as const,
    attempt: '1',
    agentModel: quoteArgv(steps.at(-1)?.command ?? []),
    locator,
  };
  ctx.workLog.finish(rt.group, { ...cells, kind: 'START', time: startedAt, result: 'running' });
  ctx.workLog.finish(rt.group, { ...cells, kind: 'FINISH', time: ctx.now(), result });
  return locator;
}
