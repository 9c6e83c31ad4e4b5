import type { CatalogTarget } from '@switchyard/catalog';
import type { ProjectConfig } from '@switchyard/config';
import type { Problem, TaskState } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core/dry-run';

/** A task as the checks see it: its id and the files it will change. */
export interface PreflightTask {
  id: string;
  writeSet: readonly { path: string }[];
}

/** What a run is about to do, as the checks before it see it (nothing has started). */
export interface PreflightContext {
  workspace: string;
  /** `run`: before a live run (checks may start processes); `dry-run`: read-only checks only. */
  mode: 'run' | 'dry-run';
  config: ProjectConfig;
  /** The isolation the run uses: a git worktree per task, or the shared workspace. */
  isolation: 'worktree' | 'none';
  /** The unfinished tasks the run may work on (its scope; blocked ones only when retried). */
  tasks: readonly PreflightTask[];
  /** Persisted dispatcher state of the tasks that have one. */
  states: ReadonlyMap<string, TaskState>;
  /** Active task stages at once (0 = unlimited). */
  maxParallel: number;
  /** The catalog targets the tasks in scope can reach now (pins, --with, route candidates). */
  targets: readonly (readonly [string, CatalogTarget])[];
  /** Problems found before the checks ran, by code that needed their answer anyway: a route
   * without an installed agent CLI (the catalog narrowed to what is installed), an unusable
   * sandbox (the run needs its bwrap command). Listed with the checks' own. */
  foundProblems: readonly Problem[];
  /** True when the run pushes the source branch (then it needs an upstream). */
  pushes: boolean;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Free bytes on the disk of a path (default: statfs). A test gives a fixed figure: the free
   * space of a shared disk moves with whatever else writes to it. */
  diskFree?(path: string): Promise<number | undefined>;
}

/**
 * One check before a run: what it looks at, and the problems it finds, each with a code,
 * what is wrong and (`fix`) the exact command that mends it. Checks run side by side and
 * must not change anything; every problem of every check is reported at once.
 */
export interface PreflightCheck {
  /** Short id, e.g. `git-identity`. */
  name: string;
  /** What it checks, in a few words. */
  what: string;
  /** Only before a live run: it starts processes (e.g. a target's preflight_command). */
  liveOnly?: boolean;
  /** False when the check has nothing to look at in this run (default: it applies). */
  applies?(ctx: PreflightContext): boolean;
  run(ctx: PreflightContext): Promise<Problem[]>;
}

/**
 * Runs the checks that apply (in `mode`) and returns every problem they found, in the order of
 * the list. A check that throws is itself a problem: a broken check never lets a run through
 * unchecked, and never hides what the other checks found.
 */
export async function runPreflightChecks(
  ctx: PreflightContext,
  checks: readonly PreflightCheck[],
): Promise<Problem[]> {
  const chosen = checks.filter(
    (c) => (ctx.mode === 'run' || !c.liveOnly) && (c.applies?.(ctx) ?? true),
  );
  const found = await Promise.all(
    chosen.map((check) =>
      check.run(ctx).catch((error: unknown): Problem[] => [
        {
          code: SwitchyardError.is(error) ? error.code : 'SY_PREFLIGHT_FAILED',
          message: `the ${check.name} check (${check.what}) could not run: ${error instanceof Error ? error.message : String(error)}`,
          ...(SwitchyardError.is(error) && error.hint ? { hint: error.hint } : {}),
          severity: 'error',
        },
      ]),
    ),
  );
  return found.flat();
}

/**
 * The error that stops a run before anything starts, or undefined when no problem is an error.
 * Its code is the problems' own when they share one (e.g. SY_CATALOG_NOT_EXECUTABLE), else
 * SY_PREFLIGHT_FAILED; either way every problem is listed with its own code and fix.
 */
export function preflightError(problems: readonly Problem[]): SwitchyardError | undefined {
  const errors = problems.filter((p) => p.severity !== 'warning');
  if (errors.length === 0) return undefined;
  const codes = new Set(errors.map((p) => p.code));
  const [only] = codes;
  const code = codes.size === 1 && only ? only : 'SY_PREFLIGHT_FAILED';
  const n = errors.length;
  return new SwitchyardError(
    code,
    `${n} problem${n === 1 ? '' : 's'} found before starting; nothing was launched.`,
    {
      problems: errors,
      hint: 'run each fix shown, then run again (`switchyard run --dry-run` checks the same)',
    },
  );
}
