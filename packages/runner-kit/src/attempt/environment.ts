/** Environment variable that carries the process marker (the attempt id). */
export const PROCESS_MARKER_VAR = 'SWITCHYARD_ATTEMPT_ID';

/** The SWITCHYARD_* variables every attempt gets (the dispatcher may add more). */
export interface AttemptEnvironment {
  /** SWITCHYARD_ATTEMPT_ID: the attempt id, also the process marker found in /proc/<pid>/environ. */
  attemptId: string;
  /** SWITCHYARD_ROLE: worker, selfcheck, review… */
  role: string;
  /** SWITCHYARD_WORKSPACE: absolute workspace root (also the cwd). */
  workspace: string;
  /** SWITCHYARD_ATTEMPT_DIR: the attempt's evidence directory. */
  attemptDir: string;
  /** SWITCHYARD_TASK_ID, when the attempt belongs to a task. */
  taskId?: string;
  /** SWITCHYARD_TARGET_ID: the catalog target. */
  targetId?: string;
}

/** The SWITCHYARD_* environment of an attempt, to merge over the target's `environment`. */
export function attemptEnvironment(env: AttemptEnvironment): Record<string, string> {
  const out: Record<string, string> = {
    [PROCESS_MARKER_VAR]: env.attemptId,
    SWITCHYARD_ROLE: env.role,
    SWITCHYARD_WORKSPACE: env.workspace,
    SWITCHYARD_ATTEMPT_DIR: env.attemptDir,
  };
  if (env.taskId !== undefined) out.SWITCHYARD_TASK_ID = env.taskId;
  if (env.targetId !== undefined) out.SWITCHYARD_TARGET_ID = env.targetId;
  return out;
}

// The shared store's connection string (often with its password) names the database every
// machine's leases and fencing tokens live in: no agent, gate or set-up command needs it, and
// with it one could write the store past every lease.
const DISPATCHER_ONLY = ['SWITCHYARD_STORE'];

/**
 * The environment a process the dispatcher starts for a task inherits (an agent, a gate, a
 * set-up command): this process's, without what belongs to the dispatcher alone. A process
 * outside the sandbox runs as the same user and can still read the dispatcher's own
 * environment from /proc: this keeps the value out of what the task's code is handed.
 */
export function inheritedEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of DISPATCHER_ONLY) delete env[name];
  return env;
}
