import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandRequest, CommandResult, CommandRunner } from '@switchyard/engine';
import { inheritedEnvironment, redactSecrets, secretValuesOf } from '@switchyard/runner-kit';
import { execa } from 'execa';

const TAIL_LINES = 60;

const GATE_LOG_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/**
 * Runs a definition-of-done gate for the dispatcher: argv only (never a shell), in the
 * workspace, stdin ignored, interleaved output kept in full in the request's output file.
 * Cancelled with the run (SIGTERM, then SIGKILL after 2 s).
 */
export const runGateCommand: CommandRunner = async (
  request: CommandRequest,
): Promise<CommandResult> => {
  const [file = '', ...args] = request.argv;
  const result = await execa(file, args, {
    cwd: request.cwd,
    // A gate runs code an agent wrote: it gets what an agent gets, never the store's URL.
    env: { ...inheritedEnvironment(), ...request.env },
    extendEnv: false,
    stdin: 'ignore',
    all: true,
    reject: false,
    stripFinalNewline: false,
    forceKillAfterDelay: 2_000,
    ...(request.timeoutMs ? { timeout: request.timeoutMs } : {}),
    ...(request.signal ? { cancelSignal: request.signal } : {}),
  });
  // A gate that prints its environment must not copy credentials into evidence, state,
  // events or the next prompt: redact them here, where the output enters switchyard.
  const secrets = secretValuesOf(request.env ?? process.env);
  const all = redactSecrets(typeof result.all === 'string' ? result.all : '', secrets);
  const spawnError =
    result.failed &&
    result.exitCode === undefined &&
    !result.signal &&
    !result.isCanceled &&
    !result.timedOut
      ? (result.shortMessage ?? result.code ?? 'could not start')
      : undefined;
  mkdirSync(dirname(request.outputFile), { recursive: true, mode: 0o700 });
  // Evidence: owner-only, never written through a symlink planted at its name.
  const fd = openSync(request.outputFile, GATE_LOG_FLAGS, 0o600);
  try {
    writeFileSync(fd, `$ ${request.argv.join(' ')}\n${all || spawnError || ''}`);
  } finally {
    closeSync(fd);
  }
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdout: redactSecrets(typeof result.stdout === 'string' ? result.stdout : '', secrets),
    tail: all
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-TAIL_LINES),
    timedOut: result.timedOut,
    ...(spawnError ? { spawnError } : {}),
  };
};
