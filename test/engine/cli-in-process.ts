import { stripVTControlCharacters } from 'node:util';
import { main } from '@switchyard/cli';

/** Exit code and output of a CLI command run in this process. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Write = typeof process.stdout.write;

/**
 * Runs `switchyard <args>` in this process through the CLI's own `main` (the binary's entry
 * without `process.exit`): the same commands, output and exit codes, without a node start and
 * module load per call. For the commands that read or answer persisted state (status, resolve,
 * retro, validate, dry runs); a command whose process matters (signals, exit on a closed pipe,
 * spawned agents) belongs to a spawned test. Calls must not overlap: stdout and stderr are
 * captured by replacing their `write` while `main` runs, and `env` is set in `process.env`
 * for that time (what the command and the processes it starts see, as a spawned CLI's env).
 */
export async function cli(
  args: readonly string[],
  options: { env?: Record<string, string> } = {},
): Promise<CliResult> {
  const captured = { stdout: '', stderr: '' };
  const capture =
    (into: 'stdout' | 'stderr'): Write =>
    (chunk: unknown, ...rest: unknown[]) => {
      captured[into] += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array);
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
  const original = { stdout: process.stdout.write, stderr: process.stderr.write };
  const exitCodeBefore = process.exitCode;
  process.exitCode = undefined;
  const envBefore = Object.entries(options.env ?? {}).map(([key, value]) => {
    const before = process.env[key];
    process.env[key] = value;
    return [key, before] as const;
  });
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  let code: number;
  try {
    code = await main(args);
  } finally {
    process.stdout.write = original.stdout;
    process.stderr.write = original.stderr;
    process.exitCode = exitCodeBefore;
    for (const [key, before] of envBefore)
      if (before === undefined) delete process.env[key];
      else process.env[key] = before;
  }
  return {
    code,
    stdout: stripVTControlCharacters(captured.stdout),
    stderr: stripVTControlCharacters(captured.stderr),
  };
}

/**
 * `switchyard run --workspace <ws> --execution-catalog <catalog> <args>` in this process (see
 * {@link cli}): the run command's checks, dry runs and plan handling without a node start. Its
 * agents and commands are still real processes.
 */
export function runInProcess(
  ws: { dir: string; catalogFile: string },
  args: readonly string[] = [],
  options: { env?: Record<string, string> } = {},
): Promise<CliResult> {
  return cli(
    ['run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile, ...args],
    options,
  );
}
