import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { relative } from 'node:path';
import { attemptPaths } from '../attempt/layout.js';
import { evidenceMessage } from '../evidence/evidence-message.js';
import type { ApplyJournal, WorktreeRecord } from '../isolation/schema.js';
import type { SecretValue } from '../redact/redact.js';
import { redactDeep } from '../redact/secret-set.js';
import type { AttemptRecord, BlockedInfo, TaskState } from '../state/state-schema.js';
import type { LoadedTask } from '../workspace/load.js';
import type { EscalationCode, FailureBundle, InterviewRequest } from './escalation-schema.js';

/** Lines of stdout/stderr kept in a bundle, and the bytes read from each file's end. */
const TAIL_LINES = 40;
const TAIL_BYTES = 16 * 1024;

/** What a bundle is built from: the task's contract and state when it blocked. */
export interface BundleInput {
  workspace: string;
  /** The task's worktree record and apply journal (from the store), when it had a worktree. */
  isolation?: { record?: WorktreeRecord | undefined; journal?: ApplyJournal | undefined };
  task: Pick<LoadedTask, 'id' | 'group' | 'name' | 'dir' | 'planFile' | 'definitionOfDone'>;
  state: TaskState & { blocked: BlockedInfo };
  /** Tasks that wait on this one, directly or transitively. */
  downstream: readonly string[];
  /** Workspace-relative path the bundle is written to (cited by the interview request). */
  bundlePath: string;
  now: Date;
  /** The run's secrets: masked in every string of the bundle (tails, evidence, question). */
  secrets?: readonly SecretValue[];
}

/** The stable code of a block, from how it was recorded. */
export function escalationCode(blocked: BlockedInfo): EscalationCode {
  if (blocked.catalog) return 'SY_CATALOG_CHANGED';
  if (blocked.stage === 'plan-loop-cap') return 'SY_PLAN_LOOP_CAP';
  if (/^authentication failed/.test(blocked.reason)) return 'SY_AUTHENTICATION';
  if (/consecutive failures/.test(blocked.reason)) return 'SY_BUDGET_EXHAUSTED';
  return 'SY_TASK_BLOCKED';
}

/** The question a human is asked, by code: what decision unblocks the task. */
export function recommendedQuestion(code: EscalationCode, input: BundleInput): string {
  const { id } = input.task;
  const last = input.state.blocked.evidence[0];
  const cited = last ? ` The last evidence was: "${evidenceMessage(last)}".` : '';
  switch (code) {
    case 'SY_BUDGET_EXHAUSTED':
      return `Task ${id} failed ${input.state.blocked.stage} repeatedly.${cited} Is the plan feasible as written, or should it be changed (or the agent/catalog fixed) before it is retried?`;
    case 'SY_AUTHENTICATION':
      return `The credentials for task ${id}'s target were rejected.${cited} Were they renewed, so the task can be retried?`;
    case 'SY_CATALOG_CHANGED':
      return `The execution catalog changed under task ${id}. Should it continue on the current catalog?`;
    case 'SY_PLAN_LOOP_CAP':
      return `Task ${id} reached its plan-loop cap without approval. Raise max_plan_loops and retry, or take it over by hand?`;
    default:
      return `Task ${id} is blocked: ${input.state.blocked.reason}. What should happen to it?`;
  }
}

/**
 * Builds the failure bundle and interview request of a blocked task (reads evidence files).
 * Redacted like all other evidence: a capture whose in-place masking a crash interrupted
 * still leaks nothing through its tail.
 */
export function buildEscalation(input: BundleInput): {
  bundle: FailureBundle;
  interview: InterviewRequest;
} {
  const { state, task, workspace } = input;
  const blocked = state.blocked;
  const code = escalationCode(blocked);
  const rel = (p: string) => relative(workspace, p) || '.';
  const stageAttempts = state.attempts.filter((a) => a.role === blocked.stage);
  const last = (stageAttempts.length > 0 ? stageAttempts : state.attempts)
    .filter((a) => a.status === 'finished' && a.result !== 'success')
    .at(-1);
  const failedDirs = state.attempts
    .filter((a) => a.result !== undefined && a.result !== 'success')
    .map((a) => rel(a.attemptDir));
  const source = sourceFacts(input.isolation?.record, input.isolation?.journal);
  const diffPath = source.worktree ? rel(source.worktree) : undefined;
  const evidencePaths = [
    ...new Set([
      ...failedDirs.slice(-5),
      ...(state.correction?.file ? [rel(state.correction.file)] : []),
      ...(diffPath ? [diffPath] : []),
    ]),
  ];
  const question = recommendedQuestion(code, input);
  const createdAt = input.now.toISOString();
  const bundle: FailureBundle = {
    schema_version: 1,
    kind: 'failure-bundle',
    task: {
      id: task.id,
      group: task.group,
      name: task.name,
      planLoop: state.planLoop,
      dir: rel(task.dir),
      ...(task.planFile ? { plan: rel(task.planFile) } : {}),
    },
    failure: {
      code,
      ...(blocked.class ? { class: blocked.class } : {}),
      stage: blocked.stage,
      reason: blocked.reason,
      evidence: blocked.evidence,
    },
    attempts: { total: state.attempts.length, stage: stageAttempts.length },
    ...(task.definitionOfDone
      ? {
          definitionOfDone: {
            command: task.definitionOfDone.command,
            assertion: task.definitionOfDone.assertion,
            line: task.definitionOfDone.line,
          },
        }
      : {}),
    ...(last ? { lastAttempt: attemptTail(last, rel) } : {}),
    evidencePaths,
    ...(diffPath ? { diffPath } : {}),
    ...(source.facts ? { source: source.facts } : {}),
    blockedDownstream: [...input.downstream].sort(),
    question,
    blockedAt: blocked.at,
    createdAt,
  };
  const resolve = (flag: string) => `switchyard resolve ${task.id} ${flag}`;
  const interview: InterviewRequest = {
    schema_version: 1,
    kind: 'interview-request',
    task: task.id,
    question,
    options: [
      {
        id: 'retry',
        meaning: 'the cause is fixed: run the task again with a fresh failure budget',
        command: resolve('--retry'),
      },
      {
        id: 'skip',
        meaning: 'leave the task blocked and close the escalation (its dependents keep waiting)',
        command: resolve('--skip'),
      },
    ],
    bundle: input.bundlePath,
    blockedAt: blocked.at,
    createdAt,
  };
  return redactDeep({ bundle, interview }, input.secrets ?? []);
}

function attemptTail(a: AttemptRecord, rel: (p: string) => string) {
  const files = attemptPaths(a.attemptDir);
  return {
    attempt: a.id,
    role: a.role,
    target: a.target,
    ...(a.result ? { result: a.result } : {}),
    ...(a.exitCode !== undefined ? { exitCode: a.exitCode } : {}),
    attemptDir: rel(a.attemptDir),
    stdoutTail: tailLines(files.stdoutRaw),
    stderrTail: tailLines(files.stderrRaw),
  };
}

/** The last lines of a file, reading only its end (agent output may be large). */
export function tailLines(file: string, lines = TAIL_LINES, bytes = TAIL_BYTES): string[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString('utf8').split('\n');
    if (size > length) text.shift(); // a cut first line
    while (text.length > 0 && text.at(-1) === '') text.pop();
    return text.slice(-lines);
  } finally {
    closeSync(fd);
  }
}

/** Worktree and apply facts from the isolation records, when the task had a worktree. */
function sourceFacts(
  worktree: WorktreeRecord | undefined,
  apply: ApplyJournal | undefined,
): { worktree?: string; facts?: NonNullable<FailureBundle['source']> } {
  if (!worktree && !apply) return {};
  const step = apply?.step;
  const facts = Object.fromEntries(
    Object.entries({
      branch: worktree?.branch,
      baseCommit: worktree?.baseCommit ?? apply?.baseCommit,
      appliedCommit: worktree?.appliedCommit,
      applyStep: step,
      rolledBack: step ? step === 'rolled-back' : undefined,
    }).filter(([, v]) => v !== undefined),
  ) as NonNullable<FailureBundle['source']>;
  return { ...(worktree?.path ? { worktree: worktree.path } : {}), facts };
}
