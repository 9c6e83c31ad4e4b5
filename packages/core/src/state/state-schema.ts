import { z } from 'zod';
import { attemptUsageSchema } from '../cost/usage.js';
import { projectGateResultSchema } from '../gates/gate-result.js';
import {
  ATTEMPT_ROLES,
  CORRECTION_SOURCES,
  DECISION_KEYS,
  DECISION_STAGES,
  FAILURE_COUNTERS,
  INITIAL_PHASE,
  PHASES,
} from '../lifecycle/stages.js';
import { FAILURE_CLASSES, FAILURE_REASONS } from '../plugins/failure-class.js';

/**
 * Durable dispatcher state of one task, one JSON file per task under
 * `agent-task/.switchyard/tasks/<group>/<task>.json`, always replaced atomically.
 * It is the single source of truth for recovery: a dispatcher restarted after SIGKILL
 * reads it, re-attaches or judges every attempt not marked finished, and continues.
 */

/** One value per key: a zod shape (or a record) whose keys are a stage list of the lifecycle's
 * vocabulary (../lifecycle/stages.ts). */
function shapeOf<K extends string, V>(keys: readonly K[], value: V): Record<K, V> {
  return Object.fromEntries(keys.map((k) => [k, value])) as Record<K, V>;
}

/** Agent stages that select a catalog target. Self-check runs on the worker's decision. */
export const decisionStageSchema = z.enum(DECISION_STAGES);
/** Roles of an attempt (the value of `SWITCHYARD_ROLE`). */
export const attemptRoleSchema = z.enum(ATTEMPT_ROLES);
/** Where in the lifecycle the task is: the next thing the dispatcher does for it. */
export const taskPhaseSchema = z.enum(PHASES);

/** Which target runs a stage and on what catalog evidence; valid only while both match. */
export const decisionSchema = z.object({
  stage: decisionStageSchema,
  target: z.string(),
  /** `pin` = PLAN front matter `target`, `with` = `run --with`, `route` = first free candidate. */
  source: z.enum(['pin', 'with', 'route']),
  routeId: z.string(),
  catalogSource: z.string(),
  catalogRevision: z.string(),
  /** The catalog target object as it was when decided. */
  targetSnapshot: z.unknown(),
  /** The ordered candidates the decision may move along (a pin or `--with` first). */
  candidates: z.array(z.string()),
  /** Candidates already used by this stage (the failover never goes back to one). */
  used: z.array(z.string()),
  decidedAt: z.string(),
});

/** One attempt, recorded with status `starting` BEFORE its process is spawned. */
export const attemptRecordSchema = z.object({
  /** Attempt id; also the process marker `SWITCHYARD_ATTEMPT_ID=<id>`. */
  id: z.string(),
  role: attemptRoleSchema,
  planLoop: z.number().int().positive(),
  target: z.string(),
  attemptDir: z.string(),
  status: z.enum(['starting', 'running', 'finished']),
  pid: z.number().int().optional(),
  startToken: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  result: z.enum(['success', ...FAILURE_CLASSES]).optional(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  evidence: z.array(z.string()).optional(),
  sessionId: z.string().optional(),
  /** Ended by an interrupted run (SIGINT/SIGTERM): not counted against the stage budget. */
  interrupted: z.boolean().optional(),
  /** Classifier `retryAfter`, when the evidence named one. */
  retryAfter: z.string().optional(),
  /** Classifier `reason` (e.g. `authentication`), when it gave one. */
  reason: z.enum(FAILURE_REASONS).optional(),
  /** Catalog revision of the decision the attempt ran on (listed in `complete.log`). */
  catalogRevision: z.string().optional(),
  /** Tokens and cost the agent reported (see core's cost module). */
  usage: attemptUsageSchema.optional(),
  /** Files of the source checkout the attempt changed where it may not (outside its worktree,
   * or outside the running tasks' write sets): put back unless `restored` says otherwise. */
  sourceChanges: z
    .array(
      z.object({
        path: z.string(),
        restored: z.boolean(),
        kept: z.string().optional(),
        why: z.string().optional(),
      }),
    )
    .optional(),
  /** The attempt ran inside this sandbox (its mount table is in the locator). */
  sandbox: z.literal('bwrap').optional(),
});

/** Why a task is blocked, with the evidence a human needs. */
export const blockedSchema = z.object({
  reason: z.string(),
  stage: z.string(),
  class: z.string().optional(),
  evidence: z.array(z.string()),
  at: z.string(),
  /** Set when a changed catalog invalidated a persisted decision. */
  catalog: z.object({ old: z.string(), new: z.string() }).optional(),
  /** The file with the whole output (or evidence) of the check whose failures blocked the
   * task: the definition of done's log, the write-set check's or apply's evidence. */
  output: z.string().optional(),
  /** How many failures of the stage in a row blocked the task, when a count did (a spent
   * failure budget, the same correction repeated). Absent in a block recorded before it was
   * kept: the count is then read from the reason's leading number. */
  consecutiveFailures: z.number().int().optional(),
});

/** Feedback for the next worker attempt (failed DoD gate, unchecked checklist…). */
export const correctionSchema = z.object({
  source: z.enum(CORRECTION_SOURCES),
  summary: z.string(),
  evidence: z.array(z.string()),
  /** File with the full output (e.g. the gate's output log). */
  file: z.string().optional(),
});

/**
 * A task's worktree and apply facts, recorded in its state so a restarted dispatcher
 * re-attaches to the same worktree and `complete.log`/`status` can cite them.
 */
export const taskIsolationSchema = z.object({
  /** `switchyard/<group>/<task>`. */
  branch: z.string(),
  /** Root of the git worktree. */
  path: z.string(),
  /** Where the task's agents and gates run (the worktree, or its subfolder of the workspace). */
  workdir: z.string(),
  /** The source branch tasks are applied onto, and its tip when the worktree was created. */
  sourceBranch: z.string(),
  baseCommit: z.string(),
  /** The task's commit on the source branch, once applied. */
  sourceCommit: z.string().optional(),
  /** Shared backlog: that commit was found on the remote branch when this machine took the task
   * over (pushed by a holder that died before recording it): recorded, no attempt ran here. */
  foundOnRemote: z.boolean().optional(),
  /** Commits of this task rolled back after a failed definition of done on the source. */
  rolledBack: z.array(z.string()).default([]),
  /** Why the apply waits (the user's uncommitted source changes overlap the task's files). */
  waiting: z.string().optional(),
  /** `apply: patch`: the patch kept in the task folder instead of a source commit. */
  patchFile: z.string().optional(),
  /** Disk the worktree takes (its own, and hard-linked from a package store), when last measured. */
  disk: z.object({ bytes: z.number(), sharedBytes: z.number(), at: z.string() }).optional(),
  /** The worktree's set-up (config `isolation.setup`): running (which command), passed or failed. */
  setup: z
    .object({
      state: z.enum(['running', 'passed', 'failed']),
      /** When the set-up started. */
      since: z.string(),
      /** The command running (or the one that failed), 1-based of `total`. */
      command: z.array(z.string()).optional(),
      index: z.number().int().optional(),
      total: z.number().int().optional(),
      durationMs: z.number().optional(),
    })
    .optional(),
});

/**
 * The task's plans as the dispatcher admitted them, kept in its state: the plan it runs from
 * (definition of done, runner, write set, dependencies…), whatever the files in the task
 * folder say later, since agents can write those. Each loop's text is pinned by its SHA-256.
 * Taken when the task is first seen by a run (admitted the first time its state is written);
 * a follow-up plan is added when its plan loop starts; a human's retry admits the files again.
 */
export const admittedPlanSchema = z.object({
  loops: z.array(
    z.object({
      loop: z.number().int().positive(),
      sha256: z.string(),
      text: z.string(),
    }),
  ),
  /** The current loop's checklist as the agents returned it (ticks, and the text of items
   * the plan left empty): merged from their copies, nothing else of theirs is taken. */
  checklist: z.array(z.object({ checked: z.boolean(), text: z.string() })),
  admittedAt: z.string(),
  /** `switchyard resolve --retry` asked for the files to be admitted again at the next run. */
  readmit: z.boolean().optional(),
});

export const taskStateSchema = z.object({
  schema_version: z.literal(1),
  task: z.string(),
  planLoop: z.number().int().positive(),
  phase: taskPhaseSchema,
  /** Each agent stage's decision, by the table's decision key (the red-team review keeps its
   * own target, of another agent family than the worker's; the fixup stage the one the
   * project config names). */
  decisions: z.object(shapeOf(DECISION_KEYS, decisionSchema.optional())),
  attempts: z.array(attemptRecordSchema),
  /** Consecutive failures per stage with a counter (the lifecycle's vocabulary); a success
   * resets that stage only. A counter added later reads as 0 in a state written before it. */
  failures: z.object(shapeOf(FAILURE_COUNTERS, z.number().int().default(0))),
  /** Target id -> ISO instant before which it must not be started (classifier retryAfter). */
  cooldowns: z.record(z.string(), z.string()),
  /** Backoff: no attempt of this task before this ISO instant. */
  notBefore: z.string().optional(),
  /** The delay `notBefore` was set with (when `until` is that instant): after a restart the
   * wait is re-checked against it, so a clock set back never makes it longer. */
  notBeforeBound: z.object({ until: z.string(), delayMs: z.number().nonnegative() }).optional(),
  /** Self-check passes that did not fill the checklist, in this plan loop. */
  selfcheckRetries: z.number().int(),
  correction: correctionSchema.optional(),
  /** The last correction of each check stage (fingerprint) and how many times in a row it
   * came: the same one over and over means the agent repeats itself (see correctOrBlock). */
  repeats: z
    .record(z.string(), z.object({ fingerprint: z.string(), count: z.number().int() }))
    .optional(),
  /** Attempt id whose evidence the next attempt's prompt points at (after a failover). */
  failoverFrom: z.string().optional(),
  blocked: blockedSchema.optional(),
  /** Worktree isolation of the task (absent under isolation "none"). */
  isolation: taskIsolationSchema.optional(),
  /** The isolation the task started under, kept until it is archived (a task that began in the
   * shared workspace never moves into a worktree mid-way, nor the other way round). */
  isolationMode: z.enum(['worktree', 'none']).optional(),
  /** Set when every candidate of a stage waits for a known quota reset: the task is parked
   * until `until` (also its `notBefore`) instead of spending its failure budget. */
  parked: z
    .object({
      stage: z.string(),
      until: z.string(),
      /** Candidate target -> reset instant. */
      resets: z.record(z.string(), z.string()),
      at: z.string(),
      /** What is left of the stage's park budget once this park ends (config `park`). */
      budget: z.object({ parksLeft: z.number().int(), waitLeftMs: z.number() }).optional(),
    })
    .optional(),
  /** Consecutive parks of one stage since it last passed, and the time they waited: bounded by
   * the config's `park` (past it the stage blocks). */
  parkSpent: z
    .object({ stage: z.string(), parks: z.number().int(), waitedMs: z.number() })
    .optional(),
  /** Bumped each time the task's files change (a worker, self-check or fixup pass): a check
   * holds only for the work it judged. Absent in a state written before it was kept. */
  work: z.number().int().optional(),
  /** The `work` each check stage last passed on (write set, gates, self-check, reviews): the
   * completion promise compares it with `work`. */
  verified: z.record(z.string(), z.number().int()).optional(),
  /** The fixup stage applied plan loop `planLoop`'s MINOR findings to work `work` (the work
   * its reviews judged). */
  fixup: z.object({ planLoop: z.number().int(), work: z.number().int() }).optional(),
  /** The last result of each project gate (config `gates`) for this task, by gate name. */
  gates: z.array(projectGateResultSchema).optional(),
  /** The plans the dispatcher admitted (see `admittedPlanSchema`). */
  plan: admittedPlanSchema.optional(),
  /** The archive the dispatcher wrote: the SHA-256 of the `complete.log` it wrote, recorded
   * before the folder moved, so a restart finishes its own archive and never takes one an
   * agent made for its own. */
  archive: z.object({ completeLogSha256: z.string() }).optional(),
  /** How a `done` task was recorded when the dispatcher did not archive it: `hand` = a human
   * said so (`switchyard resolve --done`); `import` = found archived in a workspace with no
   * dispatcher records yet. */
  doneBy: z.enum(['hand', 'import']).optional(),
  updatedAt: z.string(),
});

export type Decision = z.infer<typeof decisionSchema>;
export type DecisionStage = z.infer<typeof decisionStageSchema>;
/** Where a stage's decision is kept: a decision stage's own, or the red-team review's. */
export type DecisionKey = keyof TaskState['decisions'];
export type AttemptRole = z.infer<typeof attemptRoleSchema>;
export type AttemptRecord = z.infer<typeof attemptRecordSchema>;
export type TaskPhase = z.infer<typeof taskPhaseSchema>;
export type BlockedInfo = z.infer<typeof blockedSchema>;
export type Correction = z.infer<typeof correctionSchema>;
export type TaskIsolation = z.infer<typeof taskIsolationSchema>;
export type AdmittedPlan = z.infer<typeof admittedPlanSchema>;
/** Durable state of one task. */
export type TaskState = z.infer<typeof taskStateSchema>;

/** A fresh state for a task that has never run. */
export function newTaskState(task: string, now = new Date()): TaskState {
  return {
    schema_version: 1,
    task,
    planLoop: 1,
    phase: INITIAL_PHASE,
    decisions: {},
    attempts: [],
    failures: freshFailures(),
    cooldowns: {},
    selfcheckRetries: 0,
    work: 0,
    verified: {},
    updatedAt: now.toISOString(),
  };
}

/** Every stage's consecutive-failure counter at zero (a new task, or a retried one). */
export function freshFailures(): TaskState['failures'] {
  return shapeOf(FAILURE_COUNTERS, 0);
}
