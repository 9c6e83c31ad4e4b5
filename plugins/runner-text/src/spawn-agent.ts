import { spawn } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { SwitchyardError } from '@switchyard/core';
import { attemptPaths, inheritedEnvironment, PROCESS_MARKER_VAR } from '@switchyard/runner-kit';
import { EVIDENCE_APPEND, EVIDENCE_MODE } from './owned-append.js';
import { type AgentExit, HelperSpawnError, SpawnHelperClient } from './spawn-client.js';

export type { AgentExit } from './spawn-client.js';

export interface SpawnedAgent {
  pid: number;
  /** Start token read right after the start (before the process could be reaped), if known. */
  startToken?: string;
  /** Settles when the child exits (never rejects). */
  exit: Promise<AgentExit>;
}

export interface SpawnAgentSpec {
  attemptDir: string;
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** A file to give the agent as stdin (see RunnerSpec.stdinFile); /dev/null without. */
  stdinFile?: string;
}

/**
 * Starts the agent: argv without a shell, stdin from /dev/null (or `stdinFile`, read-only: a
 * prompt too long for argv), its own process group, and
 * stdout/stderr going straight to `stdout.raw`/`stderr.raw` (O_APPEND fds owned by the child),
 * so the agent keeps writing its output if the dispatcher dies. The launch goes through the
 * spawn helper (spawn-client.ts) when it runs, else from this process.
 */
export async function spawnAgent(spec: SpawnAgentSpec): Promise<SpawnedAgent> {
  const [file, ...args] = spec.argv;
  if (!file)
    throw new SwitchyardError('SY_RUNNER_SPAWN', 'The agent argv is empty.', {
      hint: 'Give the catalog target a non-empty runtime.command.',
    });
  mkdirSync(spec.attemptDir, { recursive: true, mode: 0o700 });
  const paths = attemptPaths(spec.attemptDir);
  // the agent's environment: this process's, extended by the attempt's
  const env = { ...inheritedEnvironment(), ...spec.env };
  try {
    const helper = SpawnHelperClient.shared();
    const marker = spec.env[PROCESS_MARKER_VAR];
    if (helper?.usable && marker !== undefined) {
      try {
        return await helper.spawn({
          file,
          args,
          cwd: spec.cwd,
          env,
          stdout: paths.stdoutRaw,
          stderr: paths.stderrRaw,
          ...(spec.stdinFile !== undefined ? { stdin: spec.stdinFile } : {}),
          marker: { name: PROCESS_MARKER_VAR, value: marker },
        });
      } catch (error) {
        // the helper itself failed (any agent it may have started is killed): start from here
        if (!(error instanceof HelperSpawnError && error.code === 'EHELPER')) throw error;
      }
    }
    return await spawnDirect(file, args, spec.cwd, env, paths, spec.stdinFile);
  } catch (error) {
    if (SwitchyardError.is(error)) throw error;
    throw new SwitchyardError(
      'SY_RUNNER_SPAWN',
      `Could not start ${file}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
        hint: 'Check that the command exists and is executable (catalog runtime.command) and that the workspace exists.',
      },
    );
  }
}

/** The same launch from this process (when no helper can run). */
async function spawnDirect(
  file: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  paths: { stdoutRaw: string; stderrRaw: string },
  stdinFile: string | undefined,
): Promise<SpawnedAgent> {
  const out = openSync(paths.stdoutRaw, EVIDENCE_APPEND, EVIDENCE_MODE);
  let err: number | undefined;
  let input: number | undefined;
  let child: ReturnType<typeof spawn>;
  try {
    err = openSync(paths.stderrRaw, EVIDENCE_APPEND, EVIDENCE_MODE);
    if (stdinFile !== undefined)
      input = openSync(stdinFile, constants.O_RDONLY | constants.O_NOFOLLOW);
    child = spawn(file, args, { cwd, env, detached: true, stdio: [input ?? 'ignore', out, err] });
  } finally {
    // the child holds its own copies of the fds
    closeSync(out);
    if (err !== undefined) closeSync(err);
    if (input !== undefined) closeSync(input);
  }
  const pid = child.pid;
  if (pid === undefined) {
    throw await new Promise<Error>((resolve) => child.once('error', resolve));
  }
  child.on('error', () => {
    // after a successful start only kill() can fail, and agents are signalled by group
  });
  const exit = new Promise<AgentExit>((resolve) =>
    child.once('exit', (exitCode, signal) => resolve({ exitCode, signal, exitObserved: true })),
  );
  return { pid, exit };
}
