import type { AgentCommitPolicy } from '@switchyard/config';
import type { Correction, WriteSetReport } from '@switchyard/core';
import { advance } from '../advance.js';
import { persist } from '../context.js';
import { blockTask, correctOrBlock } from '../landing/apply-failure.js';
import { filesCell, writeGitStageRows } from '../landing/git-stage-rows.js';
import { inspectSharedRound } from '../shared/shared-writes.js';
import type { DispatchContext, TaskRuntime } from '../types.js';
import { isolationOf } from '../worktree/task-worktree.js';
import { persistPassedCheck } from './passed-check.js';
import { allowedPaths } from './write-set-scope.js';

/**
 * Worktree isolation, after the worker (and self-check): the worktree's diff against its
 * base (commits the agent made included) is checked against the declared write set. Files
 * outside it, changes to git metadata or no change at all go back to the worker as a
 * correction naming them, charged to `failures.writeset` (ten in a row block the task);
 * under `writeSet: "revert-outside"` the outside files are reset to their base first.
 */
export async function runWriteSetStage(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const isolation = isolationOf(ctx);
  // A task in the shared workspace (isolation "none", or ./task-isolation-mode.ts) has no
  // worktree to diff: its writes are judged on snapshots of the workspace.
  if (!isolation || !rt.state.isolation) return checkSharedWrites(ctx, rt);
  const startedAt = ctx.now();
  const writeSet = await allowedPaths(isolation, rt);
  const report = await isolation.inspect(rt.id, writeSet);
  // No agent can fix the repository's ignore rules: a human decides, and nothing lands half.
  if (report.ignored?.length) {
    blockTask(ctx, rt, {
      stage: 'writeset',
      reason: `the write set names files ignored by git, so the task's worktree cannot carry them to the source: ${report.ignored.join(', ')}. Stop ignoring them (.gitignore), drop them from the write set, or set isolation: "none"`,
      evidence: report.ignored.map((f) => `ignored by git: ${f}`),
    });
    return persist(ctx, rt);
  }
  let reverted: string[] = [];
  if (report.outside.length > 0 && ctx.options.writeSetPolicy === 'revert-outside')
    reverted = await isolation.revertOutside(rt.id, writeSet);
  const correction = writeSetCorrection(report, writeSet, reverted, {
    policy: ctx.options.agentCommitPolicy ?? 'warn',
    base: rt.state.isolation.baseCommit,
  });
  const warning = correction ? undefined : agentCommitWarning(report);
  const evidenceFile = writeGitStageRows(ctx, rt, {
    role: 'writeset',
    startedAt,
    artifact: writeSetArtifact(report) + (warning ? ` · warning: ${warning}` : ''),
    label: `git diff ${rt.state.isolation.baseCommit.slice(0, 12)}`,
    result: correction ? 'writeset-violated' : 'success',
    evidence: {
      writeSet,
      ...report,
      reverted,
      correction: correction?.summary,
      ...(warning ? { warnings: [warning] } : {}),
    },
  });
  if (warning)
    ctx.bus.emit({
      type: 'task.isolation',
      task: rt.id,
      step: 'agent-commits',
      detail: warning,
      files: report.agentCommits ?? [],
    });
  if (!correction) {
    advance(rt, 'passed');
    return persist(ctx, rt);
  }
  return sendBack(ctx, rt, report, correction, evidenceFile);
}

/**
 * A violation: announced, then back to the worker with the correction (or blocked); the
 * check's evidence file goes with it (a block's escalation bundle names it).
 */
async function sendBack(
  ctx: DispatchContext,
  rt: TaskRuntime,
  report: WriteSetReport,
  correction: Correction,
  evidenceFile: string | undefined,
): Promise<void> {
  ctx.bus.emit({
    type: 'task.isolation',
    task: rt.id,
    step: 'writeset-violation',
    detail: correction.summary,
    files: [...report.gitMetadata, ...(report.escapingLinks ?? []), ...report.outside],
  });
  correctOrBlock(ctx, rt, {
    stage: 'writeset',
    correction: evidenceFile ? { ...correction, file: evidenceFile } : correction,
    blockReason: (n) => `${n} consecutive write-set corrections: ${correction.summary}`,
  });
  await persist(ctx, rt);
}

/**
 * The shared workspace: the files the task's writing attempts changed since the snapshot
 * before them (./shared-writes.ts), judged like a worktree's diff — a file outside the write
 * set is the same correction (there is no diff to call a change empty). Nothing can be reset
 * without git, so `writeSet: "revert-outside"` corrects only. No snapshot (a task begun
 * before snapshots): nothing to judge.
 */
async function checkSharedWrites(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  const startedAt = ctx.now();
  const report = await inspectSharedRound(ctx, rt);
  const writeSet = rt.task.writeSet.map((e) => e.path);
  const correction = report ? writeSetCorrection(report, writeSet) : undefined;
  const evidenceFile = report
    ? writeGitStageRows(ctx, rt, {
        role: 'writeset',
        startedAt,
        artifact: writeSetArtifact(report),
        label: 'workspace snapshot',
        result: correction ? 'writeset-violated' : 'success',
        evidence: { writeSet, ...report, correction: correction?.summary },
      })
    : undefined;
  if (!report || !correction) {
    advance(rt, 'passed');
    return persistPassedCheck(ctx, rt);
  }
  return sendBack(ctx, rt, report, correction, evidenceFile);
}

/** The work-log artifact cell of a check: what broke the write set, or what changed. */
function writeSetArtifact(report: WriteSetReport): string {
  if (report.gitMetadata.length > 0) return filesCell('git metadata', report.gitMetadata);
  if (report.outside.length > 0) return filesCell('outside the write set', report.outside);
  if (report.empty || report.changed.length === 0) return 'no change';
  return filesCell('changed', report.changed);
}

/** The warning for commits an agent made (under the default policy "warn"). */
export function agentCommitWarning(report: WriteSetReport): string | undefined {
  const commits = report.agentCommits ?? [];
  if (commits.length === 0) return undefined;
  return `the agent made ${commits.length} commit(s) of its own (${commits.join('; ')}); they are squashed into the task's one commit`;
}

/** The correction for a report, or undefined when the changes respect the write set. */
export function writeSetCorrection(
  report: WriteSetReport,
  writeSet: readonly string[],
  reverted: readonly string[] = [],
  commits: { policy: AgentCommitPolicy; base: string } = { policy: 'warn', base: '' },
): Correction | undefined {
  const allowed = `the plan's write set: ${writeSet.join(', ') || '(none)'}`;
  if (report.gitMetadata.length > 0) {
    const restored = new Set(report.gitMetadataRestored ?? []);
    const left = report.gitMetadata.filter((m) => !restored.has(m));
    const undone =
      restored.size === 0
        ? ''
        : left.length === 0
          ? '; the dispatcher has put them back as they were'
          : `; the dispatcher has put back ${[...restored].join(', ')}`;
    return {
      source: 'writeset',
      summary: `changes to git metadata are refused (${report.gitMetadata.join(', ')})${undone}: ${left.length > 0 ? `undo ${left.length === report.gitMetadata.length ? 'them' : left.join(', ')} (restore what you changed under .git, remove what you added) and ` : ''}do not run git; the dispatcher commits your changes`,
      evidence: report.gitMetadata.map((m) => (restored.has(m) ? `${m}: put back` : m)),
    };
  }
  if (commits.policy === 'refuse' && report.agentCommits?.length)
    return {
      source: 'writeset',
      summary: `commits of your own are refused (isolation.agentCommits: "refuse"): ${report.agentCommits.join('; ')}. Undo them and keep the changes in the working tree (git reset --soft ${commits.base || "<the task's base commit>"}), and do not commit; the dispatcher commits your changes`,
      evidence: report.agentCommits.map((c) => `agent commit: ${c}`),
    };
  if (report.escapingLinks?.length)
    return {
      source: 'writeset',
      summary: `links out of your worktree are refused (${report.escapingLinks.join(', ')}: a symbolic link pointing outside it, or a hard link sharing another file's content): replace each with a regular file of its own holding the content it needs`,
      evidence: report.escapingLinks.map((f) => `link out of the worktree: ${f}`),
    };
  if (report.outside.length > 0)
    return {
      source: 'writeset',
      summary:
        reverted.length > 0
          ? `files outside ${allowed} were changed and have been reset: ${report.outside.join(', ')}. Change only the files of the write set`
          : `files outside ${allowed} were changed: ${report.outside.join(', ')}. Undo those changes and change only the files of the write set`,
      evidence: report.outside.map((f) => `outside the write set: ${f}`),
    };
  if (report.empty)
    return {
      source: 'writeset',
      summary: `no change was made: implement the plan by changing ${allowed}`,
      evidence: [],
    };
  return undefined;
}
