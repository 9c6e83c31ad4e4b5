import type { Command } from 'commander';
import { cleanEvidence } from './clean-evidence.js';

/** Options of `switchyard clean`. */
export interface CleanCommandOptions {
  workspace?: string;
  blocked?: boolean;
  dryRun?: boolean;
  json?: boolean;
  evidenceOlderThan?: string;
  evidenceMaxSize?: string;
}

/** `switchyard clean`: removes leftover task worktrees and their branches. */
export function registerClean(program: Command): void {
  program
    .command('clean')
    .description(
      'Remove leftover task worktrees and switchyard/… branches (never an active task’s).',
    )
    .option(
      '--workspace <dir>',
      'repository root holding agent-task/ (default: found from the current folder upward)',
    )
    .option('--blocked', 'also remove blocked tasks’ worktrees (kept as evidence otherwise)')
    .option('--dry-run', 'only list what would be removed, with the disk it uses')
    .option('--json', 'print one JSON document: { removed, kept, bytesFreed, dryRun }')
    .option(
      '--evidence-older-than <age>',
      'also prune failed attempts’ evidence older than this (e.g. 14d, 12h)',
    )
    .option(
      '--evidence-max-size <size>',
      'also prune failed attempts’ evidence, oldest first, until all of it fits (e.g. 500MB)',
    )
    .addHelpText(
      'after',
      `
Removes the worktrees (under $XDG_CACHE_HOME/switchyard/worktrees/, or isolation.dir; those
an earlier version nested in agent-task/.switchyard/worktrees/ too) and branches of tasks that were
applied, orphans no record describes, and with --blocked those of blocked tasks. A task that
is still active keeps its worktree; the repository's objects are never touched (no gc).
Outside a git repository there is nothing to clean. Exit 0 when done, 1 when git failed,
2 for an invalid age or size.

With --evidence-older-than and/or --evidence-max-size it also prunes the evidence of failed
attempts (agent-task/.switchyard/attempts/): those that ended before the age, then the oldest
until every attempt folder together fits the size. Never an attempt of an active task, never
the latest attempt of a blocked task, never a successful one; a pruned attempt keeps its
locator.json (the logs cite it) and an evidence-pruned.json. --dry-run lists them.

Examples:
  $ switchyard clean --dry-run
  $ switchyard clean --blocked
  $ switchyard clean --json | jq .bytesFreed
  $ switchyard clean --evidence-older-than 14d --evidence-max-size 500MB --dry-run`,
    )
    .action(async (opts: CleanCommandOptions) => cleanCommand(opts));
}

async function cleanCommand(opts: CleanCommandOptions): Promise<void> {
  const { formatBytes: size } = await import('@switchyard/utils');
  const { loadProjectConfig } = await import('@switchyard/config');
  const { openConfiguredIsolation } = await import('../run-isolation.js');
  // Found from the current folder upward like the other commands; where there is none, the
  // current folder (outside git there is nothing to clean).
  const workspace = await (await import('../command-workspace.js')).commandWorkspace(
    opts.workspace,
  );
  // `isolation.dir` says where the worktrees are; an unreadable config cannot say otherwise.
  const config = await loadProjectConfig(workspace).then(
    (c) => c.config,
    () => undefined,
  );
  const { openFsStore } = await import('@switchyard/store-fs');
  // The worktree records are this machine's: in the workspace's file store.
  const isolation = await openConfiguredIsolation(
    workspace,
    config?.isolation,
    openFsStore({ workspace }),
  );
  const dryRun = opts.dryRun === true;
  const pruneEvidence = opts.evidenceOlderThan !== undefined || opts.evidenceMaxSize !== undefined;
  const evidence = pruneEvidence
    ? await cleanEvidence(workspace, {
        ...(opts.evidenceOlderThan !== undefined ? { olderThan: opts.evidenceOlderThan } : {}),
        ...(opts.evidenceMaxSize !== undefined ? { maxSize: opts.evidenceMaxSize } : {}),
        dryRun,
      })
    : undefined;
  const report = isolation
    ? await isolation.clean({ blocked: opts.blocked === true, dryRun })
    : { removed: [], kept: [], bytesFreed: 0 };
  if (opts.json) {
    const { printJson } = await import('../output.js');
    printJson({ ...report, dryRun, ...(evidence ? { evidence } : {}) });
    return;
  }
  const out: string[] = [];
  if (evidence) {
    for (const p of evidence.pruned)
      out.push(
        `${dryRun ? 'would prune' : 'pruned'} evidence of ${p.attempt} (${p.task}, ended ${p.endedAt}, by ${p.why}) ${size(p.bytes)}`,
      );
    out.push(
      `evidence: ${evidence.pruned.length} failed attempt${evidence.pruned.length === 1 ? '' : 's'} ${dryRun ? 'to prune' : 'pruned'}, ${evidence.protected} kept for active or blocked tasks, ${size(evidence.bytesFreed)} ${dryRun ? 'to free' : 'freed'} of ${size(evidence.totalBytes)}`,
    );
  }
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
