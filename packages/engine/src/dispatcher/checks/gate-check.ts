import { join, relative } from 'node:path';
import type { DefinitionOfDone } from '@switchyard/core';
import { maskSecretsInFile } from '@switchyard/runner-kit';
import { assertionText, type ProjectGate } from '@switchyard/tasks';
import { ensureOwnedDir } from '@switchyard/utils';
import { type GateRun, gateAsDone } from '../../gates/run-gates.js';
import type { CommandResult, DispatchContext, TaskRuntime } from '../types.js';
import { judgeGate } from './judge-gate.js';

/** Output lines of the task's own gate kept in its event (the whole output is in its file). */
const GATE_OUTPUT_LINES = 20;

/** One gate command run for a task: the plan's definition of done or a project gate. */
export interface GateCheck {
  /** The command and its assertion (a project gate's through `gateAsDone`). */
  done: DefinitionOfDone;
  cwd: string;
  /** The file that keeps the command's whole output. */
  outputFile: string;
  timeoutMs?: number;
  /** A project gate (config `gates`): its name and where it runs, announced with it. */
  gate?: { name: string; on: 'task' | 'source' };
  /** The check runs on the source branch after an apply; the announcement says so. */
  afterApply?: boolean;
  /** The announcement carries the assertion and the output's last lines (the task's own gate). */
  showOutput?: boolean;
  /** Findings that fail a command which passed (the change verification). */
  verify?: (outputFile: string) => string[] | Promise<string[]>;
  /** What stops the command (default: the run's stop). A check on the source during an apply
   * takes the apply's abort instead: a first stop request lets the apply under way finish. */
  signal?: AbortSignal;
}

/** How a gate check ended. */
export interface GateVerdict {
  result: CommandResult;
  passed: boolean;
  /** Why, in words (`expected exit code 0, got exit code 1`). */
  why: string;
  /** What `verify` found (the check failed because of them). */
  findings: string[];
}

/**
 * Runs one gate command (argv, no shell, through the CLI's command runner), judges it against
 * its assertion and announces it as `gate.finished`: the plan's definition of done, the
 * project's gates and the checks on the source after an apply are all judged and announced
 * here, alike. Undefined when the run was stopped while the command ran: an interrupted
 * command proves nothing, so it is neither judged nor announced.
 */
export async function runGateCheck(
  ctx: DispatchContext,
  rt: TaskRuntime,
  check: GateCheck,
): Promise<GateVerdict | undefined> {
  const { done } = check;
  const signal = check.signal ?? ctx.signal;
  const result = await ctx.options.runCommand({
    argv: done.argv,
    cwd: check.cwd,
    outputFile: check.outputFile,
    ...(check.timeoutMs !== undefined ? { timeoutMs: check.timeoutMs } : {}),
    signal,
  });
  // The output file keeps what the command printed: also hide the catalog's `${VAR}` values.
  maskSecretsInFile(check.outputFile, ctx.secrets);
  if (signal.aborted) return undefined;
  const judged = await judgeGate(done, result);
  // A passed command still fails when the change does not verify (stubs, missing tests).
  const findings = judged.passed && check.verify ? await check.verify(check.outputFile) : [];
  const verdict =
    findings.length > 0
      ? { passed: false, why: `the change does not verify: ${findings.length} finding(s)` }
      : judged;
  ctx.bus.emit({
    type: 'gate.finished',
    task: rt.id,
    planLoop: rt.state.planLoop,
    command: [...done.argv],
    exitCode: result.exitCode,
    passed: verdict.passed,
    detail: check.afterApply ? `on the source: ${verdict.why}` : verdict.why,
    ...(check.showOutput
      ? {
          assertion: assertionText(done.assertion),
          output: result.tail.slice(-GATE_OUTPUT_LINES),
        }
      : {}),
    ...(check.gate ? { gate: check.gate.name, on: check.gate.on } : {}),
  });
  return { result, passed: verdict.passed, why: verdict.why, findings };
}

/** Where project gates run and where their output goes. */
export interface ProjectGatePlace {
  /** The directory a gate's command runs in. */
  cwdOf: (gate: ProjectGate) => string;
  /** The results name their output file relative to this directory. */
  base: string;
  /** The folder (under `base`) for the output files. */
  outputDir: string;
  afterApply?: boolean;
  /** A check of a gate's output beyond its assertion (the test gate under `tests: required`). */
  verifyOf?: (gate: ProjectGate) => GateCheck['verify'];
  /** What stops the gates (default: the run's stop; see {@link GateCheck.signal}). */
  signal?: AbortSignal;
}

/**
 * Runs project gates one after the other (all of them, so each result is known), each
 * through {@link runGateCheck}. Undefined when the run was stopped before they all ran.
 */
export async function runProjectGates(
  ctx: DispatchContext,
  rt: TaskRuntime,
  gates: readonly ProjectGate[],
  place: ProjectGatePlace,
): Promise<GateRun[] | undefined> {
  ensureOwnedDir(place.base, place.outputDir);
  const planLoop = rt.state.planLoop;
  const runs: GateRun[] = [];
  const signal = place.signal ?? ctx.signal;
  for (const gate of gates) {
    if (signal.aborted) return undefined;
    const done = gateAsDone(gate);
    const outputFile = join(
      place.outputDir,
      `${gate.name}.${planLoop}.${ctx.now().getTime().toString(36)}.log`,
    );
    const verify = place.verifyOf?.(gate);
    const verdict = await runGateCheck(ctx, rt, {
      done,
      cwd: place.cwdOf(gate),
      outputFile,
      ...(gate.timeoutMs !== undefined ? { timeoutMs: gate.timeoutMs } : {}),
      gate: { name: gate.name, on: gate.on },
      ...(place.afterApply ? { afterApply: true } : {}),
      ...(verify ? { verify } : {}),
      signal,
    });
    if (!verdict) return undefined;
    runs.push({
      command: done.command,
      tail: [...verdict.findings, ...verdict.result.tail],
      result: {
        name: gate.name,
        on: gate.on,
        planLoop,
        passed: verdict.passed,
        detail: verdict.why,
        exitCode: verdict.result.exitCode,
        output: relative(place.base, outputFile),
        at: ctx.now().toISOString(),
      },
    });
  }
  return runs;
}
