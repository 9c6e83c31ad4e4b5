import { closeSync, mkdirSync, openSync } from 'node:fs';
import { attemptPaths, SwitchyardError } from '@switchyard/core';
import { execa, type Result } from 'execa';

export interface SpawnedAgent {
  pid: number;
  /** Settles when the child exits (never rejects). */
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
}

/**
 * Starts the agent: argv without a shell, stdin from /dev/null, its own process group, and
 * stdout/stderr going straight to `stdout.raw`/`stderr.raw` (O_APPEND fds owned by the child),
 * so the agent keeps writing its output if the dispatcher dies.
 */
export async function spawnAgent(spec: {
  attemptDir: string;
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}): Promise<SpawnedAgent> {
  const [file, ...args] = spec.argv;
  if (!file)
    throw new SwitchyardError('SY_RUNNER_SPAWN', 'The agent argv is empty.', {
      hint: 'Give the catalog target a non-empty runtime.command.',
    });
  mkdirSync(spec.attemptDir, { recursive: true });
  const paths = attemptPaths(spec.attemptDir);
  const out = openSync(paths.stdoutRaw, 'a');
  const err = openSync(paths.stderrRaw, 'a');
  let child: ReturnType<typeof execa>;
  try {
    child = execa(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      extendEnv: true,
      stdin: 'ignore',
      // execa passes integer fds straight to spawn(); its types only list 1 and 2 here
      stdout: out as unknown as 'ignore',
      stderr: err as unknown as 'ignore',
      detached: true,
      cleanup: false,
      reject: false,
      buffer: false,
    });
  } finally {
    // the child holds its own copies of the fds
    closeSync(out);
    closeSync(err);
  }
  if (child.pid === undefined) {
    const failed = (await child) as Result & { shortMessage?: string; code?: string };
    throw new SwitchyardError(
      'SY_RUNNER_SPAWN',
      `Could not start ${file}: ${failed.shortMessage ?? failed.code ?? 'unknown error'}`,
      {
        hint: 'Check that the command exists and is executable (catalog runtime.command) and that the workspace exists.',
      },
    );
  }
  const exit = (child as unknown as Promise<Result>).then((result) => ({
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
  }));
  return { pid: child.pid, exit };
}
