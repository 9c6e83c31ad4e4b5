import {
  type ApplyJournal,
  type AttemptLocator,
  type FailureBundle,
  type InterviewRequest,
  newTaskState,
  type RunEvent,
  type SessionPlan,
  type SessionStatus,
  type TaskState,
  type WorkLogRow,
  type WorktreeRecord,
} from '@switchyard/core';

// Valid records of every kind a store keeps, as the engine writes them.

const AT = '2026-12-01T10:00:00.000Z';
const COMMIT = 'a'.repeat(40);

export const taskState = (task: string, marker = 0): TaskState => ({
  ...newTaskState(task, new Date(AT)),
  selfcheckRetries: marker,
});

export const admitted = (task: string, planLoop: number, runId = 'run-1'): RunEvent => ({
  type: 'task.admitted',
  at: AT,
  runId,
  task,
  planLoop,
});

export const workLogRow = (task: string, attempt: number): WorkLogRow => ({
  kind: 'START',
  time: new Date(AT),
  task,
  artifact: 'PLAN.md',
  planLoop: 1,
  role: 'worker',
  attempt: String(attempt),
  agentModel: 'agent-a/model-a',
  result: 'running',
  locator: `attempts/${attempt}/locator.json`,
});

export const locator = (task: string, attemptId: string, startedAt = AT): AttemptLocator => ({
  schemaVersion: 1,
  attemptId,
  taskId: task,
  role: 'worker',
  planLoop: 1,
  targetId: 'target-a',
  agent: 'agent-a',
  model: 'model-a',
  executionClass: 'local_model',
  runtime: { command: ['x', '{prompt}'], argv: ['x', 'p'], outputFormat: 'text', environment: {} },
  catalog: { source: 'bundled', revision: 'rev-1' },
  process: { pid: 4242, markerName: 'SWITCHYARD_ATTEMPT_ID', marker: attemptId, pgid: 4242 },
  workspace: { realpath: '/w', dev: 1, ino: 2 },
  startedAt,
  result: 'running',
  evidence: [],
});

export const sessionPlan = (id: string): SessionPlan => ({
  schema_version: 1,
  id,
  workspace: '/w',
  createdAt: AT,
  options: { taskGroup: 'g' },
  tasks: ['g/a'],
});

export const sessionStatus = (id: string, state: SessionStatus['state']): SessionStatus => ({
  schema_version: 1,
  id,
  state,
  pid: 4242,
  startedAt: AT,
  updatedAt: AT,
  runs: [],
});

export const escalation = (
  task: string,
): { bundle: FailureBundle; interview: InterviewRequest } => {
  const [group = 'g', name = 't'] = task.split('/');
  return {
    bundle: {
      schema_version: 1,
      kind: 'failure-bundle',
      task: { id: task, group, name, planLoop: 1, dir: `agent-task/${task}` },
      failure: {
        code: 'SY_BUDGET_EXHAUSTED',
        stage: 'worker',
        reason: 'ten failures',
        evidence: ['exit 1'],
      },
      attempts: { total: 10, stage: 10 },
      evidencePaths: [],
      blockedDownstream: [],
      question: 'Retry it?',
      blockedAt: AT,
      createdAt: AT,
    },
    interview: {
      schema_version: 1,
      kind: 'interview-request',
      task,
      question: 'Retry it?',
      options: [{ id: 'retry', meaning: 'try again', command: `switchyard resolve ${task} retry` }],
      bundle: 'bundle',
      blockedAt: AT,
      createdAt: AT,
    },
  };
};

export const worktreeRecord = (task: string): WorktreeRecord => ({
  schema: 1,
  taskId: task,
  branch: `switchyard/${task}`,
  path: `/w/.worktrees/${task}`,
  workdir: `/w/.worktrees/${task}`,
  sourceBranch: 'main',
  baseCommit: COMMIT,
  state: 'active',
  createdAt: AT,
});

export const journal = (task: string, step: ApplyJournal['step']): ApplyJournal => ({
  schema: 1,
  taskId: task,
  sourceBranch: 'main',
  baseCommit: COMMIT,
  step,
  files: [],
  history: [{ step, at: AT }],
});
