import { z } from 'zod';

/**
 * The two files a blocked task leaves for a human, beside the dispatcher state under
 * `agent-task/.switchyard/escalations/<group>/<task>.*.json`. The failure bundle says what
 * happened; the interview request asks the one question whose answer unblocks the task.
 * An escalation is open while its task is still blocked by the block it describes
 * (`blockedAt`) and nobody resolved it.
 */

/** Why the task blocked, as a stable code a machine can branch on. */
export const ESCALATION_CODES = [
  'SY_BUDGET_EXHAUSTED',
  'SY_AUTHENTICATION',
  'SY_CATALOG_CHANGED',
  'SY_PLAN_LOOP_CAP',
  'SY_TASK_BLOCKED',
] as const;
export type EscalationCode = (typeof ESCALATION_CODES)[number];

/** How a human closed an escalation: `retry` (fresh budget), `skip` (leave it blocked) or
 * `done` (an archived task recorded as complete by hand). */
export const RESOLUTIONS = ['retry', 'skip', 'done'] as const;
export type ResolutionAction = (typeof RESOLUTIONS)[number];

export const resolutionSchema = z.object({
  action: z.enum(RESOLUTIONS),
  at: z.string(),
  /** Who resolved it (the OS user name), for the record. */
  by: z.string().optional(),
  /** The human's words given with the answer (from the monitor page). */
  note: z.string().optional(),
});

const attemptTailSchema = z.object({
  attempt: z.string(),
  role: z.string(),
  target: z.string(),
  result: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  attemptDir: z.string(),
  stdoutTail: z.array(z.string()),
  stderrTail: z.array(z.string()),
});

export const failureBundleSchema = z.object({
  schema_version: z.literal(1),
  kind: z.literal('failure-bundle'),
  task: z.object({
    id: z.string(),
    group: z.string(),
    name: z.string(),
    planLoop: z.number().int(),
    /** Workspace-relative task folder and current plan file. */
    dir: z.string(),
    plan: z.string().optional(),
  }),
  failure: z.object({
    code: z.enum(ESCALATION_CODES),
    /** Failure class of the last attempt (e.g. `generic-error`), when an attempt decided it. */
    class: z.string().optional(),
    stage: z.string(),
    reason: z.string(),
    evidence: z.array(z.string()),
  }),
  /** Attempts of the task (all plan loops) and of the stage that blocked: an agent stage's
   * attempts, or a check's consecutive failed runs (definition of done, write set, apply). */
  attempts: z.object({ total: z.number().int(), stage: z.number().int() }),
  /** The plan's definition of done, as the worker saw it. */
  definitionOfDone: z
    .object({ command: z.string(), assertion: z.unknown(), line: z.number().int() })
    .optional(),
  lastAttempt: attemptTailSchema.optional(),
  /** A check that blocked the task (definition of done, project gates, write set, apply):
   * the file with its whole output (or evidence) and that output's last lines. */
  lastCheck: z
    .object({
      stage: z.string(),
      command: z.string().optional(),
      output: z.string(),
      outputTail: z.array(z.string()),
    })
    .optional(),
  /** What the task produced: its patch (`apply: patch`), its worktree (the diff), the check
   * evidence; workspace-relative where inside the workspace. */
  artifacts: z.array(z.string()).optional(),
  /** Files a human opens first: attempt folders, gate output, diff/worktree. */
  evidencePaths: z.array(z.string()),
  diffPath: z.string().optional(),
  /** Source commit and rollback status, when the task ran in its own worktree. */
  source: z
    .object({
      branch: z.string().optional(),
      baseCommit: z.string().optional(),
      appliedCommit: z.string().optional(),
      applyStep: z.string().optional(),
      rolledBack: z.boolean().optional(),
      /** The task's commits rolled back from the source branch (a failed source check). */
      rolledBackCommits: z.array(z.string()).optional(),
      /** The task's commit on the source branch, when it landed. */
      sourceCommit: z.string().optional(),
    })
    .optional(),
  /** Tasks that wait on this one, directly or transitively. */
  blockedDownstream: z.array(z.string()),
  question: z.string(),
  /** The block this bundle describes (`blocked.at` of the task state). */
  blockedAt: z.string(),
  createdAt: z.string(),
  resolution: resolutionSchema.optional(),
});
export type FailureBundle = z.infer<typeof failureBundleSchema>;

export const interviewRequestSchema = z.object({
  schema_version: z.literal(1),
  kind: z.literal('interview-request'),
  task: z.string(),
  question: z.string(),
  /** What a human can answer, each with the command that records the answer. */
  options: z.array(z.object({ id: z.enum(RESOLUTIONS), meaning: z.string(), command: z.string() })),
  bundle: z.string(),
  blockedAt: z.string(),
  createdAt: z.string(),
  resolution: resolutionSchema.optional(),
});
export type InterviewRequest = z.infer<typeof interviewRequestSchema>;
