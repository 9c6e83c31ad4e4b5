import { z } from 'zod';
import { attemptUsageSchema } from '../cost/usage.js';
import { ATTEMPT_ROLES, DECISION_STAGES } from '../lifecycle/stages.js';
import { FAILURE_CLASSES } from '../plugins/failure-class.js';

/**
 * The typed event stream of a dispatcher run. One stream feeds the terminal renderer,
 * `run --json` (JSONL on stdout), `agent-task/.switchyard/events.jsonl` (read later by
 * `status` and the monitor) and nothing else decides anything from it: events report, the
 * persisted state decides.
 */

const base = {
  /** ISO-8601 UTC instant the event was emitted. */
  at: z.string(),
  /** Id of the dispatcher run that emitted it (one per `switchyard run`). */
  runId: z.string(),
  /** The machine of the dispatcher that emitted it (`<host> pid <pid>`), on a shared store. */
  machine: z.string().optional(),
};

const role = z.enum(ATTEMPT_ROLES);
const decisionStage = z.enum(DECISION_STAGES);
const resultClass = z.enum(['success', ...FAILURE_CLASSES]);

/** Where a stage is in the lifecycle, for counts in the live status line. */
export const countsSchema = z.object({
  running: z.number().int(),
  ready: z.number().int(),
  waiting: z.number().int(),
  blocked: z.number().int(),
  done: z.number().int(),
});

export const runEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('run.started'),
    workspace: z.string(),
    pid: z.number().int(),
    catalog: z.object({ source: z.string(), revision: z.string() }),
    maxParallel: z.number().int(),
    taskGroup: z.string().optional(),
    tasks: z.number().int(),
  }),
  z.object({
    ...base,
    type: z.literal('task.admitted'),
    task: z.string(),
    planLoop: z.number().int(),
  }),
  z.object({
    ...base,
    type: z.literal('task.waiting'),
    task: z.string(),
    /** A backoff or cooldown is reported by `attempt.retry-scheduled` instead. `backlog`: a
     * task of a shared backlog this run waits for while another machine has it (or none yet). */
    reason: z.enum(['dependencies', 'claim', 'apply', 'backlog']),
    detail: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('stage.decided'),
    task: z.string(),
    stage: decisionStage,
    target: z.string(),
    source: z.enum(['pin', 'with', 'route', 'persisted']),
    catalogRevision: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('attempt.started'),
    task: z.string(),
    role,
    planLoop: z.number().int(),
    attempt: z.string(),
    target: z.string(),
    agent: z.string(),
    model: z.string(),
    pid: z.number().int().optional(),
    attemptDir: z.string(),
    reattached: z.boolean().optional(),
    /** The attempt runs inside a sandbox (`bwrap`: bubblewrap). */
    sandbox: z.literal('bwrap').optional(),
  }),
  z.object({
    ...base,
    type: z.literal('attempt.finished'),
    task: z.string(),
    role,
    planLoop: z.number().int(),
    attempt: z.string(),
    target: z.string(),
    result: resultClass,
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    evidence: z.array(z.string()),
    durationMs: z.number(),
    attemptDir: z.string(),
    /** Judged after a restart from its files: the dispatcher that started it died, and the
     * agent ended while no dispatcher watched it (its exit status was not seen). */
    recovered: z.boolean().optional(),
    /** Tokens and cost the agent reported, when it did. */
    usage: attemptUsageSchema.optional(),
  }),
  z.object({
    ...base,
    type: z.literal('attempt.retry-scheduled'),
    task: z.string(),
    role,
    target: z.string(),
    delayMs: z.number(),
    consecutiveFailures: z.number().int(),
    reason: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('target.failover'),
    task: z.string(),
    stage: decisionStage,
    from: z.string(),
    to: z.string(),
    class: resultClass,
    evidence: z.array(z.string()),
  }),
  z.object({
    ...base,
    type: z.literal('gate.finished'),
    task: z.string(),
    planLoop: z.number().int(),
    command: z.array(z.string()),
    exitCode: z.number().int().nullable(),
    passed: z.boolean(),
    detail: z.string(),
    /** The Definition-of-Done assertion as written (`exit code 0`, `stdout contains "x"`). */
    assertion: z.string().optional(),
    /** Last lines of the command's output (stdout and stderr). */
    output: z.array(z.string()).optional(),
    /** Set for a project gate (config `gates`): its name and where it ran. */
    gate: z.string().optional(),
    on: z.enum(['task', 'source']).optional(),
  }),
  z.object({
    ...base,
    // A `runner: local` task ran its command (instead of an agent) in the source workspace.
    type: z.literal('local.finished'),
    task: z.string(),
    planLoop: z.number().int(),
    command: z.array(z.string()),
    shell: z.boolean(),
    exitCode: z.number().int().nullable(),
    passed: z.boolean(),
    detail: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('review.verdict'),
    task: z.string(),
    planLoop: z.number().int(),
    verdict: z.enum(['APPROVED', 'CHANGES_REQUESTED']),
    findings: z.object({ critical: z.number(), moderate: z.number(), minor: z.number() }),
    /** What the verdict leads to by severity: archive, archive with notes, revise, reject. */
    disposition: z.enum(['approved', 'approved-with-notes', 'revise', 'reject']).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('task.plan-loop'),
    task: z.string(),
    planLoop: z.number().int(),
    plan: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('task.blocked'),
    task: z.string(),
    stage: z.string(),
    reason: z.string(),
    evidence: z.array(z.string()),
  }),
  z.object({
    ...base,
    type: z.literal('task.escalated'),
    task: z.string(),
    code: z.string(),
    question: z.string(),
    /** Workspace-relative path of the failure bundle. */
    bundle: z.string(),
    blockedDownstream: z.array(z.string()),
  }),
  z.object({
    ...base,
    type: z.literal('task.parked'),
    task: z.string(),
    stage: z.string(),
    /** When the first candidate's quota resets (ISO 8601); the task waits until then. */
    until: z.string(),
    targets: z.array(z.string()),
  }),
  z.object({
    ...base,
    type: z.literal('task.archived'),
    task: z.string(),
    archiveDir: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('worklog.archived'),
    group: z.string(),
    path: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('control.failure'),
    code: z.string(),
    message: z.string(),
  }),
  z.object({
    ...base,
    /** Worktree isolation: a git step of the task (see the dispatcher's stage-writeset/stage-apply). */
    type: z.literal('task.isolation'),
    task: z.string(),
    step: z.enum([
      'worktree',
      'writeset-violation',
      'applied',
      'conflict',
      'rolled-back',
      'refused',
      'patch',
      /** The task started in the shared workspace and keeps it (the run has worktrees now). */
      'shared-workspace',
      /** A blocked task's claim was released: its work is in its worktree, not on the source. */
      'claim-released',
      /** A new worktree's set-up (config `isolation.setup`) started, passed or failed. */
      'setup',
      'setup-passed',
      'setup-failed',
      /** The agent committed in its worktree (a warning: the apply squashes its commits). */
      'agent-commits',
    ]),
    detail: z.string(),
    files: z.array(z.string()).optional(),
    commit: z.string().optional(),
  }),
  z.object({
    ...base,
    /** An agent attempt changed files of the source checkout where it may not (under worktree
     * isolation: anywhere; without: outside the running tasks' write sets). `restored`: put
     * back as they were before the attempt (each version found is kept in `keptIn`). */
    type: z.literal('attempt.source-changed'),
    task: z.string(),
    attempt: z.string(),
    role: z.string(),
    files: z.array(z.string()),
    restored: z.boolean(),
    keptIn: z.string(),
    detail: z.string(),
  }),
  z.object({
    ...base,
    /** A finding: the task's plan files say something else than the plan the dispatcher
     * admitted (its definition of done, runner, write set, dependencies…). The admitted plan
     * stays in force. `attempt`: changed while that attempt ran (the files were written again
     * from the record: `restored`); without it, found at the start of a run; `adopted`: a
     * human's retry admitted the files as they are now. */
    type: z.literal('plan.changed'),
    task: z.string(),
    attempt: z.string().optional(),
    files: z.array(z.string()),
    fields: z.array(z.string()),
    restored: z.boolean(),
    adopted: z.boolean().optional(),
    detail: z.string(),
  }),
  z.object({
    ...base,
    /** Archive entries without the dispatcher's record of their archive (`unrecorded`): never
     * counted as done. `imported`: found archived in a workspace with no dispatcher records
     * yet, recorded as done once. */
    type: z.literal('archive.checked'),
    unrecorded: z.array(z.string()),
    imported: z.array(z.string()),
    detail: z.string(),
  }),
  z.object({
    ...base,
    /** An admission rule of the workspace (not of one task) started holding tasks back:
     * `apply-queue` = under worktree isolation as many approved tasks as allowed wait for the
     * apply, so no task that has not started gets a worktree; `worktree-disk` = the worktrees
     * take the disk cap (`isolation.maxDiskBytes`). Once per episode, not per pass. */
    type: z.literal('admission.held'),
    rule: z.enum(['apply-queue', 'worktree-disk']),
    /** How many tasks it holds back now. */
    held: z.number().int(),
    detail: z.string(),
  }),
  z.object({
    ...base,
    /** A stop request (SIGINT/SIGTERM): nothing new starts, agents and gates stop, the apply
     * under way finishes (queued applies wait for the next run); `abortApply`: a second one,
     * the apply under way is rolled back. */
    type: z.literal('run.stopping'),
    abortApply: z.boolean(),
  }),
  z.object({
    ...base,
    /** A human acted on the run or a task (from the monitor page): what, on which task, by
     * whom, and what it did. Only actions carried out are recorded. */
    type: z.literal('human.action'),
    action: z.enum(['retry', 'skip', 'resolve', 'stop-task', 'stop-run']),
    task: z.string().optional(),
    /** `resolve`: the answer chosen, and the human's words kept with it. */
    answer: z.enum(['retry', 'skip']).optional(),
    note: z.string().optional(),
    by: z.string().optional(),
    via: z.string(),
    detail: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('run.progress'),
    counts: countsSchema,
    elapsedMs: z.number(),
  }),
  z.object({
    ...base,
    type: z.literal('run.finished'),
    exitCode: z.number().int(),
    counts: countsSchema,
    elapsedMs: z.number(),
    blocked: z.array(z.object({ task: z.string(), reason: z.string() })),
    /** Why the run exits 1: each control-plane failure, in words (empty when none). */
    controlFailures: z.array(z.string()).optional(),
  }),
]);

/** One event of the run stream. */
export type RunEvent = z.infer<typeof runEventSchema>;
/** The `type` discriminator values. */
export type RunEventType = RunEvent['type'];
/** Counts shown in the live status line. */
export type RunCounts = z.infer<typeof countsSchema>;
/** An event as given to `emit`: `at` and `runId` are filled in by the bus. */
export type RunEventInput = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'at' | 'runId'>
    : never
  : never;
