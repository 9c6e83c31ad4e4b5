import type { ProjectGateResult } from '@switchyard/core';
import type { ProjectGate } from '@switchyard/tasks';
import type { CommandRunner } from '../dispatcher/types.js';
import { type GateRun, runGates } from './run-gates.js';

/** What running the `source` gates of a task needs. */
export interface SourceGatesInput {
  /** The project config's gates; only those with `on: "source"` run. */
  gates: readonly ProjectGate[];
  /** The source workspace: where the task's work has landed. */
  source: string;
  /** Folder (under `source`) for the gates' output files. */
  outputDir: string;
  runCommand: CommandRunner;
  planLoop: number;
  now?: () => Date;
  signal?: AbortSignal;
}

/** The outcome of the source gates: every result, and whether all passed. */
export interface SourceGatesOutcome {
  passed: boolean;
  results: ProjectGateResult[];
  /** The failed gates' runs (command and last output lines), for a correction or rollback. */
  failed: GateRun[];
}

/**
 * Runs the project's `source` gates on the source workspace and returns their results.
 *
 * When it is called: under isolation `none` the task's working tree is the source, so the
 * dispatcher calls it right after the task gates. Under worktree isolation it is to be called
 * once the task's work has been applied to the source (after apply, before the task is
 * archived); a failure there is the caller's to roll back, like a failed source definition
 * of done. It never changes the source itself.
 */
export async function runSourceGates(input: SourceGatesInput): Promise<SourceGatesOutcome> {
  const runs = await runGates({
    gates: input.gates.filter((g) => g.on === 'source'),
    cwd: input.source,
    workspace: input.source,
    outputDir: input.outputDir,
    runCommand: input.runCommand,
    planLoop: input.planLoop,
    now: input.now ?? (() => new Date()),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const failed = runs.filter((r) => !r.result.passed);
  return { passed: failed.length === 0, results: runs.map((r) => r.result), failed };
}
