// The errors subpath: start-up does not load the rest of core.
import { formatProblem, type Problem, SwitchyardError } from '@switchyard/core/errors';
import pc from 'picocolors';

/** Writes one JSON document (pretty) to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints every problem, one per line, to stderr. */
export function printProblems(problems: readonly Problem[]): void {
  for (const problem of problems) {
    const line = formatProblem(problem);
    process.stderr.write(
      `${problem.severity === 'warning' ? pc.yellow('warning') : pc.red('error')} ${line}\n`,
    );
  }
}

/** Prints an error that ended a command: its problems when it has them, else its message. */
export function printError(error: unknown): void {
  if (SwitchyardError.is(error)) {
    if (error.problems.length > 0) {
      process.stderr.write(`${pc.red('error')} ${error.code}: ${error.message}\n`);
      printProblems(error.problems);
    } else {
      printProblems([
        {
          code: error.code,
          message: error.message,
          ...(error.file ? { file: error.file } : {}),
          ...(error.line ? { line: error.line } : {}),
          ...(error.path ? { path: error.path } : {}),
          ...(error.hint ? { hint: error.hint } : {}),
        },
      ]);
    }
    return;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `${pc.red('internal error')} ${message}\n  This is a bug in switchyard; please report it with the output above.\n`,
  );
}

/**
 * The error that ended a `--json` command, as one line of JSON on stdout (after whatever the
 * command printed there: a JSONL event stream stays JSONL): `{"type":"error","exitCode":1,
 * "code":"SY_LOCK_HELD","message":…,"hint":…,"problems":[…]}`. An error that is not a
 * switchyard error is `SY_INTERNAL`.
 */
export function printJsonError(error: unknown, exitCode: number): void {
  const body = SwitchyardError.is(error)
    ? {
        code: error.code,
        message: error.message,
        ...(error.file ? { file: error.file } : {}),
        ...(error.line ? { line: error.line } : {}),
        ...(error.path ? { path: error.path } : {}),
        ...(error.hint ? { hint: error.hint } : {}),
        problems: error.problems,
      }
    : { code: 'SY_INTERNAL', message: error instanceof Error ? error.message : String(error) };
  process.stdout.write(`${JSON.stringify({ type: 'error', exitCode, ...body })}\n`);
}
