import { type CatalogTarget, findExecutable, renderTemplate } from '@switchyard/catalog';
import { type Problem, SwitchyardError } from '@switchyard/core';
import { quoteArgv } from '@switchyard/tasks/dry-run';
import { expandEnvironmentValue } from '@switchyard/utils';
import { execa } from 'execa';
import type { PreflightCheck } from './registry.js';

/** The outcome of one target's `preflight_command`. */
export interface PreflightResult {
  targetId: string;
  ok: boolean;
  /** The argv that ran (placeholders filled); empty when the target has no preflight. */
  command: string[];
  exitCode?: number;
  signal?: string;
  timedOut: boolean;
  /** Interleaved stdout+stderr tail, kept so a failure can be shown and recorded. */
  output: string;
  durationMs: number;
}

/** Options of {@link runPreflight}. */
export interface PreflightOptions {
  /** Working directory (the workspace); also fills `{workspace}`. */
  cwd: string;
  /** Base environment (default `process.env`); the target's `environment` is added on top. */
  env?: NodeJS.ProcessEnv;
  /** Kill the preflight after this long (default 60 s). */
  timeoutMs?: number;
  /** Cancel (e.g. on SIGINT). */
  signal?: AbortSignal;
}

const OUTPUT_TAIL = 16 * 1024;

/**
 * Runs a target's `preflight_command` once before a live run: argv only (no shell), stdin
 * ignored so nothing waits on a terminal, output kept for the report when it fails.
 * A target without a preflight passes trivially.
 */
export async function runPreflight(
  targetId: string,
  target: CatalogTarget,
  opts: PreflightOptions,
): Promise<PreflightResult> {
  const started = performance.now();
  const argv = target.runtime.preflight_command;
  if (!argv) return { targetId, ok: true, command: [], timedOut: false, output: '', durationMs: 0 };
  const values = {
    agent: target.agent,
    model: target.model,
    target_id: targetId,
    workspace: opts.cwd,
  };
  const command = argv.map((a) => renderTemplate(a, values));
  const base = opts.env ?? process.env;
  const extra = Object.fromEntries(
    Object.entries(target.runtime.environment ?? {}).map(([k, v]) => [
      k,
      renderTemplate(expandEnvironmentValue(v, base).value, values),
    ]),
  );
  const [file = '', ...args] = command;
  const result = await execa(file, args, {
    cwd: opts.cwd,
    env: { ...base, ...extra },
    extendEnv: false,
    stdin: 'ignore',
    all: true,
    reject: false,
    timeout: opts.timeoutMs ?? 60_000,
    forceKillAfterDelay: 2_000,
    ...(opts.signal ? { cancelSignal: opts.signal } : {}),
  });
  const all = typeof result.all === 'string' ? result.all : '';
  const output = all.length > OUTPUT_TAIL ? all.slice(-OUTPUT_TAIL) : all;
  return {
    targetId,
    ok: result.exitCode === 0 && !result.failed,
    command,
    ...(result.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
    ...(result.signal ? { signal: result.signal } : {}),
    timedOut: result.timedOut,
    // A command that could not start has no output: keep execa's reason (e.g. ENOENT) instead.
    output: output || (result.failed ? (result.shortMessage ?? '') : ''),
    durationMs: Math.round(performance.now() - started),
  };
}

/** Runs the preflights of the given targets (in order) and throws SY_PREFLIGHT_FAILED listing every failure. */
export async function assertPreflights(
  targets: readonly (readonly [string, CatalogTarget])[],
  opts: PreflightOptions,
): Promise<PreflightResult[]> {
  const results: PreflightResult[] = [];
  for (const [id, target] of targets) results.push(await runPreflight(id, target, opts));
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    throw new SwitchyardError(
      'SY_PREFLIGHT_FAILED',
      `Preflight failed for ${failed.map((r) => r.targetId).join(', ')}.`,
      { problems: preflightCommandProblems(failed) },
    );
  }
  return results;
}

/** One problem per failed preflight command, with its output's tail. */
export function preflightCommandProblems(results: readonly PreflightResult[]): Problem[] {
  return results
    .filter((r) => !r.ok)
    .map((r) => ({
      code: 'SY_PREFLIGHT_FAILED' as const,
      path: `targets.${r.targetId}.runtime.preflight_command`,
      message: `"${r.command.join(' ')}" ${r.timedOut ? 'timed out' : r.signal ? `was killed by ${r.signal}` : r.exitCode === undefined ? 'could not be started' : `exited ${r.exitCode}`}${r.output ? `:\n${indent(r.output.trimEnd())}` : ''}`,
      hint: 'run the command yourself to see what it needs (login, a running local server, …)',
      fix: quoteArgv(r.command),
    }));
}

/** The preflight commands of the targets in use, as a check before a live run. */
export const targetPreflightCheck: PreflightCheck = {
  name: 'target-preflight',
  what: "each target's preflight_command",
  liveOnly: true,
  applies: (ctx) => ctx.targets.some(([, t]) => t.runtime.preflight_command),
  async run(ctx) {
    const results: PreflightResult[] = [];
    // A target whose agent CLI is missing is reported by the agent-clis check instead.
    const installed = ctx.targets.filter(([, t]) =>
      findExecutable(t.runtime.command[0] ?? '', ctx.env, ctx.workspace),
    );
    for (const [id, target] of installed)
      results.push(
        await runPreflight(id, target, {
          cwd: ctx.workspace,
          env: ctx.env,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        }),
      );
    return preflightCommandProblems(results);
  },
};

const indent = (text: string) =>
  text
    .split('\n')
    .slice(-20)
    .map((l) => `      ${l}`)
    .join('\n');
