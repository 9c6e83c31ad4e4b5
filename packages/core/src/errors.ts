/**
 * The one error type of switchyard. Every failure a user can act on carries a stable
 * `code` (`SY_*`), a message that says what is wrong and how to fix it, and, where it
 * applies, the file and line or JSON path it is about.
 */

/** Stable error codes. Documented in the core README; never reuse a code for another meaning. */
export const ERROR_CODES = {
  SY_INTERNAL: 'A bug in switchyard.',
  SY_USAGE: 'Invalid command-line usage (unknown flag, missing argument).',
  SY_CONFIG_INVALID: 'The project config file is invalid.',
  SY_CATALOG_NOT_FOUND: 'The execution catalog file does not exist or cannot be read.',
  SY_CATALOG_PARSE: 'The execution catalog is not valid JSON.',
  SY_CATALOG_INVALID: 'The execution catalog breaks the catalog contract.',
  SY_CATALOG_NOT_EXECUTABLE: "A catalog target's command is not executable on this machine.",
  SY_PREFLIGHT_FAILED:
    "A check before a run failed (a target's preflight_command, or a precondition below); nothing was launched.",
  SY_PREFLIGHT_GIT_IDENTITY:
    'Git has no author/committer identity, so the commit of a task onto the source branch would fail.',
  SY_PREFLIGHT_NO_COMMIT:
    'The source branch has no commit yet: a task worktree has nothing to start from.',
  SY_PREFLIGHT_DETACHED_HEAD: 'The source checkout has a detached HEAD: tasks land on a branch.',
  SY_PREFLIGHT_NO_UPSTREAM: 'Pushing is configured but the source branch has no upstream.',
  SY_PREFLIGHT_DIRTY_WRITE_SET:
    "Uncommitted changes in the source checkout overlap a task's write set: its apply would wait for them.",
  SY_PREFLIGHT_DISK_SPACE: 'Too little free disk for the task worktrees the run would create.',
  SY_PLAN_INVALID: 'A PLAN.md breaks the task contract.',
  SY_YAML_PLAN_INVALID:
    'A YAML plan (orchestrate-plan) or legacy markdown task file is invalid, or changed for a task already started.',
  SY_GRAPH_INVALID: 'The task graph has an unknown dependency or a cycle.',
  SY_WORKSPACE_NOT_FOUND: 'No workspace (a folder holding agent-task/) where the command looked.',
  SY_UNKNOWN_GROUP: 'A task group named on the command line does not exist.',
  SY_CLAIM_CONFLICT: 'A write-set claim is held by another task.',
  SY_STATE_CORRUPT: 'Persisted dispatcher state cannot be read.',
  SY_STORE_CONFLICT:
    'A compare-and-set write to the state store lost: the record changed since it was read.',
  SY_LEASE_LOST:
    "A write for a task carried a stale fencing token: the writer's lease on the task was taken over.",
  SY_STORE_URL: 'The state store URL (--store, SWITCHYARD_STORE, config `store`) is not valid.',
  SY_STORE_UNREACHABLE:
    'The state store (a PostgreSQL server) cannot be reached or refused the login.',
  SY_STORE_TRANSIENT:
    'A state store operation failed for a passing reason (a deadlock or serialization failure, a dropped connection): trying it again may succeed.',
  SY_STORE_SCHEMA:
    "The state store's schema is missing or older than this switchyard (run `switchyard store init`).",
  SY_STORE_SCOPE:
    'A run on a shared store needs a git clone whose checked-out branch has an upstream (the backlog and the apply queue belong to that remote branch).',
  SY_BACKLOG_CONFLICT:
    'A task published to the shared backlog has a different plan than the task of that id already there.',
  SY_ACTION_REFUSED:
    'A human action (retry, skip, resolve, stop) does not apply to the task or run as it is now.',
  SY_PLUGIN_LOAD: 'A plugin failed to load or validate.',
  SY_PLUGIN_NOT_FOUND: 'No plugin of that name is registered.',
  SY_PLUGIN_DUPLICATE: 'Two plugins share a name.',
  SY_RUNNER_SPAWN: 'An agent process could not be started.',
  SY_PROMPT_TOO_LONG:
    "An attempt's prompt is too long for argv and the agent or runner takes it no other way.",
  SY_CLASSIFIER_FAILED: 'A classifier plugin threw while classifying an attempt.',
  SY_LOCK_HELD: 'Another dispatcher holds the workspace lock.',
  SY_TASK_HELD:
    'On a shared store, a machine whose lease on the task is live is running it: a human change to it waits until it ends there.',
  SY_WORK_LOG: 'The work log could not be written or archived.',
  SY_GIT: 'A git operation of task isolation failed.',
  SY_ESCALATION: "A blocked task's escalation files could not be written.",
  SY_UNSAFE_PATH:
    "One of switchyard's own files or folders is a symlink, a special file, or outside the workspace.",
  SY_ENVIRONMENT:
    'The file system or the system refused an operation switchyard needs (read-only, full, no permission, something in the way).',
  SY_SANDBOX_UNAVAILABLE:
    'The config asks for a bubblewrap sandbox, but bwrap is missing or cannot create its namespaces here.',
  SY_AGENT_VERSION_UNVERIFIED:
    "An agent CLI's version is outside the release lines its classifier rules were verified on.",
} as const;

export type SwitchyardErrorCode = keyof typeof ERROR_CODES;

/** Where a problem is: a file and line, and/or a JSON path inside a document. */
export interface ProblemLocation {
  file?: string;
  line?: number;
  /** 1-based column on `line` (YAML plans). */
  column?: number;
  /** Dotted JSON path, e.g. `routes.worker.cloud-G01.candidates.0`. */
  path?: string;
}

/** One problem found while validating input. Validation collects all of them, never only the first. */
export interface Problem extends ProblemLocation {
  code: SwitchyardErrorCode;
  message: string;
  /** The offending value as written, for showing: JSON text, cut when long, a secret redacted. */
  value?: string;
  /** What to do about it. */
  hint?: string;
  /** The exact command that fixes it, when there is one (copy, adjust, run). */
  fix?: string;
  severity?: 'error' | 'warning';
}

const BRAND = Symbol.for('switchyard.error');

export interface SwitchyardErrorOptions extends ErrorOptions, ProblemLocation {
  hint?: string;
  /** Every problem, when the error reports a validation that found several. */
  problems?: Problem[];
}

export class SwitchyardError extends Error {
  readonly code: SwitchyardErrorCode;
  readonly hint: string | undefined;
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly path: string | undefined;
  readonly problems: Problem[];

  constructor(code: SwitchyardErrorCode, message: string, options: SwitchyardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
    this.file = options.file;
    this.line = options.line;
    this.path = options.path;
    this.problems = options.problems ?? [];
  }

  /** True for any switchyard error, also one thrown by another copy of this package. */
  static is(value: unknown): value is SwitchyardError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[BRAND] === true
    );
  }
}
Object.defineProperty(SwitchyardError.prototype, 'name', { value: 'SwitchyardError' });
Object.defineProperty(SwitchyardError.prototype, BRAND, { value: true });

/** Formats a problem: `code file:line:column path: message`, then its value, hint and fix lines. */
export function formatProblem(problem: Problem): string {
  const where = [
    problem.file &&
      (problem.line
        ? `${problem.file}:${problem.line}${problem.column ? `:${problem.column}` : ''}`
        : problem.file),
    problem.path,
  ]
    .filter(Boolean)
    .join(' ');
  const head = where ? `${where}: ` : '';
  const value = problem.value !== undefined ? `\n    value: ${problem.value}` : '';
  const hint = problem.hint ? `\n    hint: ${problem.hint}` : '';
  const fix = problem.fix ? `\n    fix:  ${problem.fix}` : '';
  return `${problem.code} ${head}${problem.message}${value}${hint}${fix}`;
}

/** What to do about each system error an environment error is made of. */
const ENVIRONMENT_FIXES: Record<string, { what: string; fix: string }> = {
  EROFS: {
    what: 'the file system is read-only',
    fix: 'run switchyard where the workspace and its agent-task/.switchyard/ folder are writable (remount read-write, or work on a writable copy)',
  },
  ENOSPC: {
    what: 'the disk is full',
    fix: 'free disk space (`switchyard clean --evidence-older-than 7d` prunes old attempt evidence, `switchyard clean` applied worktrees), then run again: finished work is kept',
  },
  EDQUOT: {
    what: 'the disk quota is used up',
    fix: 'free space within your quota, then run again: finished work is kept',
  },
  EACCES: {
    what: 'permission denied',
    fix: 'run switchyard as the owner of the folder, or give your user write permission on it',
  },
  EPERM: {
    what: 'the operation is not permitted',
    fix: 'check the ownership and attributes of the folder (chattr, a read-only bind mount)',
  },
  EEXIST: {
    what: 'something already exists where switchyard creates its own file or folder',
    fix: 'move the thing at that path away (switchyard recreates its own files), then run again',
  },
  ENOTDIR: {
    what: 'a file stands where switchyard expects a folder',
    fix: 'move that file away (switchyard recreates its own folders), then run again',
  },
  EISDIR: {
    what: 'a folder stands where switchyard writes a file',
    fix: 'move that folder away, then run again',
  },
  ELOOP: {
    what: 'a symbolic link stands where switchyard writes its own file (it never follows one)',
    fix: 'remove the link (switchyard recreates its own files), then run again',
  },
  EMFILE: {
    what: 'the process has too many open files',
    fix: 'raise the limit (`ulimit -n 4096`) or lower max_parallel',
  },
  ENFILE: {
    what: 'the system has too many open files',
    fix: 'close other programs or raise fs.file-max',
  },
  ENAMETOOLONG: { what: 'the path is too long', fix: 'use a shorter workspace path' },
  EIO: {
    what: 'the disk reported an input/output error',
    fix: 'check the disk (dmesg), then run again',
  },
};

/**
 * A system error from the file system or the OS (read-only, full disk, a file in the way…) as
 * a coded `SY_ENVIRONMENT` error naming the path (else `near`, the folder the command worked
 * in) and the fix: it is the machine's state, not a bug in switchyard. Undefined for anything
 * else (a switchyard error, a real bug).
 */
export function environmentError(error: unknown, near?: string): SwitchyardError | undefined {
  if (SwitchyardError.is(error) || !(error instanceof Error)) return undefined;
  const { code, path, dest, syscall } = error as NodeJS.ErrnoException & { dest?: string };
  const known = typeof code === 'string' ? ENVIRONMENT_FIXES[code] : undefined;
  if (!known) return undefined;
  // A write has no path of its own: name the folder the command worked in.
  const where = path ?? dest;
  const place = where ?? near;
  return new SwitchyardError(
    'SY_ENVIRONMENT',
    `${syscall ?? 'an operation'} failed${where || !near ? '' : ' in this workspace'}: ${known.what} (${code}).`,
    { cause: error, ...(place ? { file: place } : {}), hint: known.fix },
  );
}
