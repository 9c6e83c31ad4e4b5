import type { Repository } from '@switchyard/git-isolation';
import { quoteArgv } from '@switchyard/tasks/dry-run';
import { execa } from 'execa';
import type { PreflightContext } from './registry.js';

/** The source checkout as the git checks see it, read once per run. */
export interface GitFacts {
  repo: Repository;
  /** The checked-out branch, undefined on a detached HEAD. */
  branch?: string;
  /** The commit HEAD names, undefined before the first commit. */
  head?: string;
}

const memo = new WeakMap<PreflightContext, Promise<GitFacts | undefined>>();

/** The repository, branch and HEAD commit of the workspace (undefined outside git). */
export function gitFacts(ctx: PreflightContext): Promise<GitFacts | undefined> {
  let facts = memo.get(ctx);
  if (!facts) {
    facts = readFacts(ctx);
    memo.set(ctx, facts);
  }
  return facts;
}

async function readFacts(ctx: PreflightContext): Promise<GitFacts | undefined> {
  const { findRepository } = await import('@switchyard/git-isolation');
  const repo = await findRepository(ctx.workspace);
  if (!repo) return undefined;
  const [branch, head] = await Promise.all([
    gitLine(ctx, repo.root, ['symbolic-ref', '-q', '--short', 'HEAD']),
    gitLine(ctx, repo.root, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']),
  ]);
  return { repo, ...(branch ? { branch } : {}), ...(head ? { head } : {}) };
}

/**
 * `git <args>` in `cwd` with the run's environment (HOME and GIT_CONFIG_* decide the identity
 * git finds, as they will for the dispatcher's commits); its first line, or undefined when it
 * failed.
 */
export async function gitLine(
  ctx: PreflightContext,
  cwd: string,
  args: readonly string[],
): Promise<string | undefined> {
  const result = await gitRun(ctx, cwd, args);
  return result.exitCode === 0 ? result.stdout.split('\n')[0]?.trim() || undefined : undefined;
}

/** Runs git without a shell, stdin closed, never throwing: exit code and output. */
export async function gitRun(
  ctx: PreflightContext,
  cwd: string,
  args: readonly string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const result = await execa('git', args, {
    cwd,
    env: { ...ctx.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
  };
}

/** `git -C <root> <args>` as a fix command: it works from any folder. */
export const gitFix = (facts: GitFacts, ...args: string[]): string =>
  quoteArgv(['git', '-C', facts.repo.root, ...args]);
