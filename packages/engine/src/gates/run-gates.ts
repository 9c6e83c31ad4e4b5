import { join, relative } from 'node:path';
import { type DefinitionOfDone, ensureOwnedDir, type ProjectGateResult } from '@switchyard/core';
import { type ProjectGate, parseAssertion } from '@switchyard/tasks';
import { judgeGate } from '../dispatcher/checks/judge-gate.js';
import type { CommandResult, CommandRunner } from '../dispatcher/types.js';

/** What running a set of project gates needs. */
export interface RunGatesInput {
  gates: readonly ProjectGate[];
  /** Where the commands run. */
  cwd: string;
  /** Workspace root: output files live under it and results name them relative to it. */
  workspace: string;
  /** Folder (under the workspace) for the output files. */
  outputDir: string;
  runCommand: CommandRunner;
  planLoop: number;
  now: () => Date;
  signal?: AbortSignal;
}

/** One gate's result plus the command's last lines (for a correction). */
export interface GateRun {
  result: ProjectGateResult;
  tail: string[];
  command: string;
}

/** A project gate as a definition of done, so one judge decides both. */
export function gateAsDone(gate: ProjectGate): DefinitionOfDone {
  const assertion = parseAssertion(gate.assertion);
  // The config schema validated the assertion; a bad one here is a caller that skipped it.
  if ('error' in assertion) throw new Error(`gate ${gate.name}: ${assertion.error}`);
  return { argv: [...gate.command], command: gate.command.join(' '), assertion, line: 0 };
}

/**
 * Runs the gates one after the other (all of them, so each result is known), without a
 * shell, through the CLI's command runner. Stops early only when the signal aborts.
 */
export async function runGates(input: RunGatesInput): Promise<GateRun[]> {
  ensureOwnedDir(input.workspace, input.outputDir);
  const runs: GateRun[] = [];
  for (const gate of input.gates) {
    if (input.signal?.aborted) break;
    const done = gateAsDone(gate);
    const outputFile = join(
      input.outputDir,
      `${gate.name}.${input.planLoop}.${input.now().getTime().toString(36)}.log`,
    );
    const result: CommandResult = await input.runCommand({
      argv: done.argv,
      cwd: input.cwd,
      outputFile,
      ...(gate.timeoutMs !== undefined ? { timeoutMs: gate.timeoutMs } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const verdict = await judgeGate(done, result);
    runs.push({
      command: done.command,
      tail: result.tail,
      result: {
        name: gate.name,
        on: gate.on,
        planLoop: input.planLoop,
        passed: verdict.passed,
        detail: verdict.why,
        exitCode: result.exitCode,
        output: relative(input.workspace, outputFile),
        at: input.now().toISOString(),
      },
    });
  }
  return runs;
}
