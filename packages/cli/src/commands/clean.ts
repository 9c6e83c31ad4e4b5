import { resolve } from 'node:path';
import type { Command } from 'commander';

/** Options of `switchyard clean`. */
export interface CleanCommandOptions {
  workspace?: string;
  blocked?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

/** `switchyard clean`: removes leftover task worktrees and their branches. */
export function registerClean(program: Command): void {
  program
    .command('clean')
    .description(
      'Remove leftover task worktrees and switchyard/… branches (never an active task’s).',
    )
    .option('--workspace <dir>', 'repository root holding agent-task/ (default: current folder)')
    .option('--blocked', 'also remove blocked tasks’ worktrees (kept as evidence otherwise)')
    .option('--dry-run', 'only list what would be removed, with the disk it uses')
    .option('--json', 'print one JSON document: { removed, kept, bytesFreed, dryRun }')
    .addHelpText(
      'after',
      `
Removes the worktrees (agent-task/.switchyard/worktrees/) and branches of tasks that were
applied, orphans no record describes, and with --blocked those of blocked tasks. A task that
is still active keeps its worktree; the repository's objects are never touched (no gc).
Outside a git repository there is nothing to clean. Exit 0 when done, 1 when git failed.

Examples:
  $ switchyard clean --dry-run
  $ switchyard clean --blocked
  $ switchyard clean --json | jq .bytesFreed`,
    )
    .action(async (opts: CleanCommandOptions) => cleanCommand(opts));
}

const size = (bytes: number): string =>
  bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

async function cleanCommand(opts: CleanCommandOptions): Promise<void> {
  const { openGitIsolation } = await import('@switchyard/git-isolation');
  const workspace = resolve(opts.workspace ?? process.cwd());
  const isolation = await openGitIsolation(workspace);
  const dryRun = opts.dryRun === true;
  const report = isolation
    ? await isolation.clean({ blocked: opts.blocked === true, dryRun })
    : { removed: [], kept: [], bytesFreed: 0 };
  if (opts.json) {
    const { printJson } = await import('../output.js');
    printJson({ ...report, dryRun });
    return;
  }
  const out: string[] = [];
  if (!isolation)
    out.push(`${workspace} is not in a git repository: there are no task worktrees to clean.`);
  for (const w of report.removed)
    out.push(
      `${dryRun ? 'would remove' : 'removed'} ${w.taskId ?? '?'} (${w.state}) ${w.path || `branch ${w.branch}`} ${size(w.bytes)}`,
    );
  for (const w of report.kept)
    out.push(
      `kept ${w.taskId ?? '?'} (${w.state}${w.state === 'blocked' ? ': use --blocked to remove' : ''}) ${w.path || `branch ${w.branch}`} ${size(w.bytes)}`,
    );
  if (isolation)
    out.push(
      `${report.removed.length} ${dryRun ? 'to remove' : 'removed'}, ${report.kept.length} kept, ${size(report.bytesFreed)} ${dryRun ? 'to free' : 'freed'}`,
    );
  process.stdout.write(`${out.join('\n')}\n`);
}
