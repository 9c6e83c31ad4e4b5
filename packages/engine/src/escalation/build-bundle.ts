import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join, relative, resolve as resolvePath } from 'node:path';
import {
  type ApplyJournal,
  type AttemptRecord,
  type BlockedInfo,
  type EscalationCode,
  type FailureBundle,
  type InterviewRequest,
  planFileName,
  type SecretValue,
  type TaskState,
  type WorktreeRecord,
} from '@switchyard/core';
import { attemptPaths, evidenceMessage, redactDeep } from '@switchyard/runner-kit';
import type { LoadedTask } from '@switchyard/tasks';

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
  // Agent stages ("10 consecutive failures in the worker stage") and the checks after the
  // worker ("10 consecutive failed definition-of-done gates", "… write-set corrections").
  if (/consecutive failures|^\d+ consecutive /.test(blocked.reason)) return 'SY_BUDGET_EXHAUSTED';
  return 'SY_TASK_BLOCKED';
}

/** What a block of each check stage is about, in the question's words. */
const CHECK_FAILURE: Record<string, (input: BundleInput, n: number) => string> = {
  gate: (input, n) =>
    `the definition of done${input.task.definitionOfDone ? ` (\`${input.task.definitionOfDone.command}\`)` : ''} failed ${n} times in a row`,
  'project-gates': (_input, n) => `the project's gates failed ${n} rounds in a row`,
  writeset: (_input, n) => `the worker broke its write set ${n} times in a row`,
  apply: (_input, n) =>
    `the approved change could not be applied to the source ${n} times in a row`,
  promise: (_input, n) => `the completion promise was unmet ${n} times in a row`,
};

/** What would unblock a check stage, asked of a human. */
const CHECK_DECISION: Record<string, string> = {
  gate: 'Is the definition of done right and passable as written, or should the plan (or the command) change before the task is retried?',
  'project-gates':
    'Are the gates right for this task, or should the plan change before it is retried?',
  writeset:
    'Should the write set name those files, or should the plan change (or the agent be told otherwise) before the task is retried?',
  apply:
    'Should the source (or its definition of done) be fixed, or the plan changed, before the task is retried?',
  promise:
    'Can each unmet part hold as the plan is written (its checks, reviews and checklist), or should the plan change before the task is retried?',
};

/** The question a human is asked: the failure by name, and the decision that unblocks the task. */
export function recommendedQuestion(code: EscalationCode, input: BundleInput): string {
  const { id } = input.task;
  const blocked = input.state.blocked;
  const last = blocked.evidence[0];
  const cited = last ? ` The last evidence was: "${evidenceMessage(last)}".` : '';
  const check = CHECK_FAILURE[blocked.stage];
  switch (code) {
    case 'SY_BUDGET_EXHAUSTED': {
      const n = failuresInARow(input.state, blocked);
      if (check)
        return `Task ${id} is blocked: ${check(input, n)} (${failureOf(blocked.reason)}).${cited} ${CHECK_DECISION[blocked.stage]}`;
      const kind = blocked.class ? ` with ${blocked.class}` : '';
      return `Task ${id} failed its ${blocked.stage} stage ${n > 0 ? `${n} times in a row` : 'repeatedly'}${kind}.${cited} Is the plan feasible as written, or should it be changed (or the agent/catalog fixed) before it is retried?`;
    }
    case 'SY_AUTHENTICATION':
      return `The credentials for task ${id}'s target were rejected.${cited} Were they renewed, so the task can be retried?`;
    case 'SY_CATALOG_CHANGED':
      return `The execution catalog changed under task ${id} (${blocked.reason}). Should it continue on the current catalog?`;
    case 'SY_PLAN_LOOP_CAP':
      return `Task ${id} reached its plan-loop cap without approval (${blocked.reason}). Raise max_plan_loops and retry, or take it over by hand?`;
    default: {
      // A check that gave the agent the same correction again and again (config corrections).
      const repeated =
        /^the agent repeats itself: the same \S+ correction \d+ times in a row \((.*)\)$/s.exec(
          blocked.reason,
        );
      if (check && repeated)
        return `Task ${id} is blocked: ${check(input, failuresInARow(input.state, blocked))}, with the same result each time (${repeated[1]!.slice(0, 300)}).${cited} ${CHECK_DECISION[blocked.stage]}`;
      // Parking spent its budget (config `park`): every candidate is out of quota.
      if (blocked.class === 'provider-quota')
        return `Task ${id} is blocked: ${blocked.reason}.${cited} Should it wait for a quota to reset (retry it after the first reset named in the evidence), or run on a candidate with quota (add one of another provider to the route, or raise park.maxWaitSeconds / park.maxParks)?`;
      return `Task ${id} is blocked in its ${blocked.stage} stage: ${blocked.reason}.${cited} What should happen to it: fix the cause and retry, or leave it blocked?`;
    }
  }
}

/** The part of a budget block's reason after its count: what failed last. */
function failureOf(reason: string): string {
  const cut = /^\d+ consecutive [^:(]+[:(]\s*/.exec(reason);
  return (cut ? reason.slice(cut[0].length) : reason).replace(/\)$/, '').slice(0, 300);
}

/**
 * How many failures in a row blocked the task: the count the block recorded. A block recorded
 * before the count was kept has it as its reason's leading number when an agent stage's budget
 * was spent; else the stage's count now stands in (a check stage's failures, an agent stage's
 * attempts, which include those before a retry).
 */
function failuresInARow(state: TaskState, blocked: BlockedInfo): number {
  if (blocked.consecutiveFailures !== undefined) return blocked.consecutiveFailures;
  const recorded = /^(\d+) consecutive failures/.exec(blocked.reason)?.[1];
  return recorded ? Number(recorded) : stageAttempts(state, blocked.stage);
}

/** Attempts of an agent stage; consecutive failed runs of a check stage (no attempt records). */
function stageAttempts(state: TaskState, stage: string): number {
  const records = state.attempts.filter((a) => a.role === stage).length;
  if (records > 0) return records;
  const failures = state.failures as Record<string, number>;
  return failures[stage] ?? 0;
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
  const rel = (p: string) => relative(workspace, resolvePath(workspace, p)) || '.';
  const last = lastAttemptOf(state, blocked.stage);
  const files = evidenceFiles(input, rel);
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
      // The plan of the loop that blocked (PLAN-<n>.md after n-1 follow-ups).
      plan: rel(join(task.dir, planFileName(state.planLoop))),
    },
    failure: {
      code,
      ...(blocked.class ? { class: blocked.class } : {}),
      stage: blocked.stage,
      reason: blocked.reason,
      evidence: blocked.evidence,
    },
    attempts: { total: state.attempts.length, stage: stageAttempts(state, blocked.stage) },
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
    ...(files.lastCheck ? { lastCheck: files.lastCheck } : {}),
    artifacts: files.artifacts,
    evidencePaths: files.evidencePaths,
    ...(files.diffPath ? { diffPath: files.diffPath } : {}),
    ...(files.source ? { source: files.source } : {}),
    blockedDownstream: [...input.downstream].sort(),
    question,
    blockedAt: blocked.at,
    createdAt,
  };
  const interview = interviewRequest(input, question, createdAt);
  return redactDeep({ bundle, interview }, input.secrets ?? []);
}

/** The files a human reads: the patch, the worktree's diff, the last check's output, the
 * last five failed attempts' folders and the correction the worker was given. */
function evidenceFiles(input: BundleInput, rel: (p: string) => string) {
  const { state, task, workspace } = input;
  const failedDirs = state.attempts
    .filter((a) => a.result !== undefined && a.result !== 'success')
    .map((a) => rel(a.attemptDir));
  const source = sourceFacts(input.isolation?.record, input.isolation?.journal, state);
  const diffPath = source.worktree ? rel(source.worktree) : undefined;
  const lastCheck = checkOf(state.blocked, task, workspace, rel);
  const patch = state.isolation?.patchFile ? join(task.dir, state.isolation.patchFile) : undefined;
  const artifacts = [
    ...(patch && existsSync(patch) ? [rel(patch)] : []),
    ...(diffPath ? [diffPath] : []),
    ...(lastCheck ? [lastCheck.output] : []),
  ];
  const evidencePaths = [
    ...new Set([
      ...failedDirs.slice(-5),
      ...(lastCheck ? [lastCheck.output] : []),
      ...(state.correction?.file ? [rel(state.correction.file)] : []),
      ...(diffPath ? [diffPath] : []),
    ]),
  ];
  return {
    lastCheck,
    diffPath,
    source: source.facts,
    artifacts: [...new Set(artifacts)],
    evidencePaths,
  };
}

/** What the human is asked, with the commands that answer it. */
function interviewRequest(
  input: BundleInput,
  question: string,
  createdAt: string,
): InterviewRequest {
  const id = input.task.id;
  const resolve = (flag: string) => `switchyard resolve ${id} ${flag}`;
  return {
    schema_version: 1,
    kind: 'interview-request',
    task: id,
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
    blockedAt: input.state.blocked.at,
    createdAt,
  };
}

/**
 * The attempt whose output a human reads first: an agent stage's last failed attempt; for a
 * check (no attempts of its own), the worker's last finished attempt, failed or not — the work
 * the check judged.
 */
function lastAttemptOf(state: TaskState, stage: string): AttemptRecord | undefined {
  const finished = state.attempts.filter((a) => a.status === 'finished');
  const ofStage = finished.filter((a) => a.role === stage);
  if (state.attempts.some((a) => a.role === stage))
    return ofStage.filter((a) => a.result !== 'success').at(-1);
  const worker = finished.filter((a) => a.role === 'worker');
  return (worker.length > 0 ? worker : finished).at(-1);
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

/**
 * The check that blocked a task (a check stage, or a command such as the worktree set-up) and
 * the file with its whole output: the one the block recorded, else the last `output: <file>`
 * line of its evidence (workspace-relative or absolute).
 */
function checkOf(
  blocked: BlockedInfo,
  task: BundleInput['task'],
  workspace: string,
  rel: (p: string) => string,
): FailureBundle['lastCheck'] {
  const named = [...blocked.evidence].reverse().find((l) => l.startsWith('output: '));
  const written = blocked.output ?? named?.slice('output: '.length);
  if (!written) return undefined;
  const file = resolvePath(workspace, written);
  // Outside the check stages an `output:` line may be an agent's own words: only a real file.
  if (!CHECK_FAILURE[blocked.stage] && !existsSync(file)) return undefined;
  const command =
    blocked.stage === 'gate' || blocked.stage === 'apply'
      ? task.definitionOfDone?.command
      : undefined;
  return {
    stage: blocked.stage,
    ...(command ? { command } : {}),
    output: rel(file),
    outputTail: tailLines(file),
  };
}

/** Worktree and apply facts from the task state and isolation records, when it had a worktree. */
function sourceFacts(
  worktree: WorktreeRecord | undefined,
  apply: ApplyJournal | undefined,
  state: TaskState,
): { worktree?: string; facts?: NonNullable<FailureBundle['source']> } {
  const isolated = state.isolation;
  if (!worktree && !apply && !isolated) return {};
  const step = apply?.step;
  // An apply's journal is gone once it rolled back: the task state keeps the commits.
  const rolledBackCommits = isolated?.rolledBack ?? [];
  const facts = Object.fromEntries(
    Object.entries({
      branch: worktree?.branch ?? isolated?.branch,
      baseCommit: worktree?.baseCommit ?? apply?.baseCommit ?? isolated?.baseCommit,
      appliedCommit: worktree?.appliedCommit,
      sourceCommit: isolated?.sourceCommit,
      applyStep: step,
      rolledBack: step === 'rolled-back' || rolledBackCommits.length > 0,
      rolledBackCommits: rolledBackCommits.length > 0 ? [...rolledBackCommits] : undefined,
    }).filter(([, v]) => v !== undefined),
  ) as NonNullable<FailureBundle['source']>;
  const path = worktree?.path ?? isolated?.path;
  return { ...(path ? { worktree: path } : {}), facts };
}
