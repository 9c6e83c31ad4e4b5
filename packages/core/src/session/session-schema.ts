import { z } from 'zod';

/**
 * A session is one `switchyard run` and every `switchyard resume` of it, in
 * `agent-task/.switchyard/sessions/<id>/`: `plan.json` (what was asked: scope and run
 * options, written once), `status.json` (where it is, replaced atomically) and `events.jsonl`
 * (the events of its runs, appended).
 */

/** The run options a resume repeats. */
export const sessionOptionsSchema = z.object({
  taskGroup: z.string().optional(),
  with: z.string().optional(),
  maxParallel: z.number().int().min(0).optional(),
  executionCatalog: z.string().optional(),
  retryBlocked: z.boolean().optional(),
  retryTasks: z.array(z.string()).optional(),
});
export type SessionOptions = z.infer<typeof sessionOptionsSchema>;

/**
 * The YAML plan a session runs, as it was when the session started: `resume` runs this text,
 * never the file as it is now (an edited or deleted file is reported).
 */
export const sessionYamlPlanSchema = z.object({
  /** The plan file, absolute. */
  file: z.string(),
  /** sha256 (hex) of `source`: how an edited file is told apart. */
  sha256: z.string(),
  /** The plan text as run (YAML, or the legacy markdown it was converted from). */
  source: z.string(),
  /** `--patch-only` was given. */
  patchOnly: z.boolean().optional(),
  /** The validated plan (id, title, max_concurrency, tasks as resolved), for readers. */
  parsed: z.record(z.string(), z.unknown()),
});
export type SessionYamlPlan = z.infer<typeof sessionYamlPlanSchema>;

export const sessionPlanSchema = z.object({
  schema_version: z.literal(1),
  id: z.string(),
  workspace: z.string(),
  createdAt: z.string(),
  options: sessionOptionsSchema,
  /** Tasks in scope when the session started. */
  tasks: z.array(z.string()),
  /** A session of `switchyard run plan.yaml`: the plan as run. */
  yamlPlan: sessionYamlPlanSchema.optional(),
});
export type SessionPlan = z.infer<typeof sessionPlanSchema>;

/** `running` while a process works on it (or crashed, when that process is gone). */
export const SESSION_STATES = ['running', 'finished', 'blocked', 'interrupted', 'failed'] as const;

export const sessionStatusSchema = z.object({
  schema_version: z.literal(1),
  id: z.string(),
  state: z.enum(SESSION_STATES),
  pid: z.number().int(),
  startToken: z.string().optional(),
  startedAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
  exitCode: z.number().int().optional(),
  /** Dispatcher run ids of this session, oldest first (one per run or resume). */
  runs: z.array(z.string()),
  /** Task counts of the latest `run.progress` (running, ready, waiting, blocked, done). */
  counts: z.record(z.string(), z.number()).optional(),
  /** Where each task of the session stands, from the run's events (kept current while it runs). */
  tasks: z.record(z.string(), sessionTaskSchema()).optional(),
  blocked: z.array(z.object({ task: z.string(), reason: z.string() })).optional(),
});
export type SessionStatus = z.infer<typeof sessionStatusSchema>;
export type SessionTask = z.infer<ReturnType<typeof sessionTaskSchema>>;

function sessionTaskSchema() {
  return z.object({
    state: z.enum(['admitted', 'running', 'waiting', 'blocked', 'done']),
    /** The stage running, waiting or blocked (worker, review, gate, apply…). */
    stage: z.string().optional(),
    target: z.string().optional(),
    planLoop: z.number().int().optional(),
    /** Why it waits or blocked; a finished attempt's result. */
    detail: z.string().optional(),
    at: z.string(),
  });
}

/**
 * `monitor-server.json` of a session: the monitor page a run of it serves (on this machine):
 * its URL (with the token: the file is the user's only), the serving process and when it
 * stopped.
 */
export const sessionMonitorSchema = z.object({
  schema_version: z.literal(1),
  url: z.string(),
  port: z.number().int(),
  pid: z.number().int(),
  startedAt: z.string(),
  stoppedAt: z.string().optional(),
});
export type SessionMonitor = z.infer<typeof sessionMonitorSchema>;
