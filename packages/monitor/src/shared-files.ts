import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { TaskState } from '@switchyard/core';
import { execa } from 'execa';

/**
 * On a shared store, why this clone cannot show a task's diff (it lives on another machine),
 * or undefined when it can. A task's state comes from the store, so its commit, patch or
 * worktree may be another machine's: reading them here would fail or, worse, show this
 * clone's files as if they were the task's.
 */
export async function diffElsewhere(
  workspace: string,
  task: string,
  state: TaskState | undefined,
  machine: string | undefined,
): Promise<string | undefined> {
  const where = machine ?? 'another machine';
  const iso = state?.isolation;
  if (iso?.sourceCommit) {
    if (await git(workspace, ['cat-file', '-e', `${iso.sourceCommit}^{commit}`])) return undefined;
    return `the commit ${iso.sourceCommit.slice(0, 12)} of ${task} was made on ${where} and is not in this clone yet: run \`git fetch\` here, then reload.`;
  }
  if (iso?.patchFile) {
    const file = isAbsolute(iso.patchFile) ? iso.patchFile : join(workspace, iso.patchFile);
    if (existsSync(file)) return undefined;
    return `the patch of ${task} (${iso.patchFile}) is on ${where}, not in this clone: read it there.`;
  }
  if (iso?.path) {
    if (await sameRepository(workspace, iso.path)) return undefined;
    return `the worktree of ${task} (${iso.path}) is on ${where}, not in this clone: its diff is readable there (or here after \`git fetch\` once it is applied).`;
  }
  // Without a worktree or commit this clone's write-set diff would not be the task's.
  return `no diff of ${task} in this clone: it has no worktree or commit in the shared store yet${machine ? ` (last on ${machine})` : ''}.`;
}

/** A plan of a task this clone has no folder of: who has it. */
export function planElsewhere(task: string, machine: string | undefined): string {
  return `the plans of ${task} are not in this clone: it is a task of ${machine ?? 'another machine'} in the shared backlog; they reach this clone when a run here (\`switchyard run --store\`) materializes its archive.`;
}

/** The folder is a worktree (or the checkout) of this workspace's repository. */
async function sameRepository(workspace: string, dir: string): Promise<boolean> {
  if (!existsSync(dir)) return false;
  const common = async (cwd: string) => {
    const out = await gitOut(cwd, ['rev-parse', '--git-common-dir']);
    return out ? realpathSync(resolve(cwd, out)) : undefined;
  };
  const [mine, theirs] = await Promise.all([common(workspace), common(dir)]);
  return mine !== undefined && mine === theirs;
}

async function git(cwd: string, args: string[]): Promise<boolean> {
  const result = await execa('git', args, { cwd, reject: false, stdin: 'ignore' });
  return result.exitCode === 0;
}

async function gitOut(cwd: string, args: string[]): Promise<string | undefined> {
  const result = await execa('git', args, { cwd, reject: false, stdin: 'ignore' });
  return result.exitCode === 0 && typeof result.stdout === 'string'
    ? result.stdout.trim()
    : undefined;
}
