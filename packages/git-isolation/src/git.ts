import { SwitchyardError } from '@switchyard/core';
import { execa } from 'execa';

/** Options of {@link git}. */
export interface GitOptions {
  /** Standard input (e.g. a NUL-separated pathspec list or a commit message). */
  input?: string;
  /** Exit codes that are answers, not failures (e.g. 1 of `merge-base --is-ancestor`). */
  allow?: readonly number[];
  env?: Record<string, string>;
}

/** How a git command ended. */
export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

// Pathspecs are file names, never globs; no pager, prompt or locale-dependent output.
const GIT_ENV = {
  GIT_LITERAL_PATHSPECS: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  LC_ALL: 'C',
};

/**
 * Runs `git <args>` in `cwd`: argv only (never a shell), stdin closed unless `input` is
 * given. A non-zero exit not listed in `allow` throws `SY_GIT` naming the command and
 * git's own message.
 */
export async function git(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<GitResult> {
  const result = await execa('git', args, {
    cwd,
    env: { ...GIT_ENV, ...options.env },
    reject: false,
    stripFinalNewline: false,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
  });
  const exitCode = result.exitCode ?? -1;
  const out: GitResult = {
    exitCode,
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
  };
  if (exitCode === 0 || options.allow?.includes(exitCode)) return out;
  throw new SwitchyardError(
    'SY_GIT',
    `git ${args.join(' ')} failed in ${cwd} (${result.exitCode === undefined ? (result.shortMessage ?? 'could not start') : `exit ${exitCode}`}): ${out.stderr.trim() || out.stdout.trim()}`,
    {
      file: cwd,
      hint:
        result.exitCode === undefined
          ? 'install git and make sure it is on PATH'
          : 'fix the repository state git reports (or run `switchyard clean`), then run again',
    },
  );
}

/** The first line of stdout, trimmed. */
export const firstLine = (result: GitResult): string => result.stdout.split('\n')[0]?.trim() ?? '';

/** Splits `-z` output into its entries. */
export const nulList = (result: GitResult): string[] =>
  result.stdout.split('\0').filter((entry) => entry !== '');

/** A NUL-separated list for `--pathspec-from-file=- --pathspec-file-nul`. */
export const pathspecInput = (files: readonly string[]): string =>
  files.map((f) => `${f}\0`).join('');
