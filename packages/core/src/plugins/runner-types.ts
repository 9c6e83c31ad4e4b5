import type { AttemptLocator, AttemptLocatorInput } from '../attempt/locator.js';
import type { TemplateValues } from '../attempt/template.js';
import type { SandboxSpec } from '../sandbox/sandbox-spec.js';
import type { Awaitable, PluginMeta, TerminalEvidence, TranscriptPlugin } from './types.js';

/** A credential value to hide (the runner masks it in what it writes), and the variable it came from. */
export interface SecretValue {
  name: string;
  value: string;
}

/** Output formats a catalog target may declare (`runtime.output_format`). */
export type OutputFormat = 'text' | 'jsonl';

/** The ways a runner can pass a prompt to the agent process it starts. */
export interface PromptChannels {
  /** Always: the prompt as an argv element. */
  argv: true;
  /** It opens `RunnerSpec.stdinFile` as the agent's standard input. */
  stdin?: boolean;
}

/** Why the dispatcher ended an attempt before it exited by itself. */
export type EndedBy = 'stall' | 'retry-loop' | 'time-limit' | 'cancel';

/** Native-session settings from the target's runtime contract. */
export interface NativeSessionSpec {
  /** `runtime.session_path`: where the CLI keeps its session files (`~` allowed). */
  sessionPath?: string;
  /** `runtime.native_session_monitor`: count session file growth as progress. */
  monitor: boolean;
}

/**
 * Everything a runner needs to start one attempt. The dispatcher builds it; the runner never
 * consults the catalog itself.
 */
export interface RunnerSpec {
  attemptId: string;
  /** Evidence directory of the attempt (created by the runner when missing). */
  attemptDir: string;
  /** Catalog `agent` identity (selects classifiers, transcript and session handling). */
  agent: string;
  outputFormat: OutputFormat;
  /** Filled argv (see `fillTemplate`); argv[0] is the executable. Never run through a shell. */
  argv: readonly string[];
  /** Working directory: the workspace root. */
  cwd: string;
  /** A file to give the agent as standard input (the prompt, when it is too long for argv;
   * runners that declare `promptDelivery.stdin`). Without it, stdin is /dev/null. */
  stdinFile?: string;
  /** Added to the dispatcher's environment: the target `environment` + SWITCHYARD_* variables
   * (`attemptEnvironment()`), which must include the SWITCHYARD_ATTEMPT_ID process marker. */
  env: Readonly<Record<string, string>>;
  /** No real progress (output bytes that are not retry lines, session growth) for this long
   * ends the attempt with `endedBy: 'stall'`. */
  stallTimeoutMs: number;
  /** Only retry announcements for this long ends it with `endedBy: 'retry-loop'`. */
  retryLoopTimeoutMs: number;
  /** Running this long since the start ends it with `endedBy: 'time-limit'`, whatever it
   * prints (`runtime.max_attempt_seconds`); unset = no limit. */
  maxAttemptMs?: number;
  /** From the agent's classifiers: true for a line that only announces an internal retry. */
  isRetryLine?: (line: string) => boolean;
  /** Formats `normalized-output.log`; without one, lines are kept as printed. */
  transcript?: TranscriptPlugin;
  /** The run's secrets: masked in the captures as they are read (the raw files in place,
   * same length), so none stays on disk in clear while the attempt runs. */
  secrets?: readonly SecretValue[];
  /** Static locator fields (task, role, target, catalog, runtime snapshot…); the runner adds
   * process identity, workspace identity, timestamps and the result. */
  locator: RunnerLocatorFields;
  nativeSession?: NativeSessionSpec;
  /** SIGTERM → SIGKILL grace on cancel (default 5000 ms). */
  killGraceMs?: number;
  /** Heartbeat interval (default 5000 ms). */
  heartbeatIntervalMs?: number;
  /** Tail poll interval (default 250 ms); the final drain at exit is immediate. */
  pollIntervalMs?: number;
  /** Run the agent inside this sandbox (runners that declare `sandbox: true`); the runner
   * records it in the locator. */
  sandbox?: SandboxSpec;
}

/** Locator fields the dispatcher supplies. */
export type RunnerLocatorFields = Omit<
  AttemptLocatorInput,
  | 'schemaVersion'
  | 'attemptId'
  | 'process'
  | 'workspace'
  | 'startedAt'
  | 'endedAt'
  | 'exitCode'
  | 'signal'
  | 'exitObserved'
  | 'endedBy'
  | 'result'
  | 'sessionId'
  | 'sandbox'
>;

/** What the runner observed so far (these are progress; heartbeat mtime never is). */
export interface ProgressCounters {
  stdoutBytes: number;
  stderrBytes: number;
  lines: number;
  retryLines: number;
  /** Size of the native session file, when monitored. */
  sessionBytes?: number;
  /** Epoch ms of the last real progress. */
  lastProgressAt: number;
}

/** How an attempt's process ended, with the evidence for the classifier chain. */
export interface RunOutcome {
  /** Exit code, or null when killed by a signal or when the exit could not be observed. */
  exitCode: number | null;
  signal: string | null;
  /** False for a reattached (non-child) process: only its disappearance was seen, so the
   * result is judged from the stream's terminal/final events (see runner README). */
  exitObserved: boolean;
  endedBy?: EndedBy;
  /** Ready for `classifyEvidence`. */
  evidence: TerminalEvidence;
  counters: ProgressCounters;
  /** Native session id read from the stream, when the agent family has one. */
  sessionId?: string;
  startedAt: Date;
  endedAt: Date;
  /** How long it ran, on a monotonic clock (the wall clock may have been stepped meanwhile);
   * unset: the dispatcher takes `endedAt - startedAt`, never below 0. */
  durationMs?: number;
}

/** A running attempt. */
export interface RunHandle {
  attemptId: string;
  pid: number;
  startToken: string | undefined;
  /** Resolves once the process group is gone and the evidence files are flushed and fsynced. */
  done: Promise<RunOutcome>;
  /** SIGTERM to the process group, SIGKILL after the grace; resolves when `done` does. */
  cancel(): Promise<RunOutcome>;
  /** Current counters. */
  progress(): ProgressCounters;
  /** Session id seen so far. */
  sessionId(): string | undefined;
}

/** Options to resume watching an attempt whose dispatcher died. */
export interface ReattachOptions {
  attemptDir: string;
  stallTimeoutMs: number;
  retryLoopTimeoutMs: number;
  /** Counted from the attempt's start (its process's age where /proc tells it, else the
   * locator's `startedAt`): a restart does not give the attempt more time. */
  maxAttemptMs?: number;
  isRetryLine?: (line: string) => boolean;
  transcript?: TranscriptPlugin;
  /** As `RunnerSpec.secrets`. */
  secrets?: readonly SecretValue[];
  nativeSession?: NativeSessionSpec;
  killGraceMs?: number;
  heartbeatIntervalMs?: number;
  pollIntervalMs?: number;
}

/** What a native resume is planned from. */
export interface ResumeRequest {
  /** The target's `runtime.resume_command`. */
  resumeCommand: readonly string[] | undefined;
  /** The native session to resume. */
  sessionId: string | undefined;
  /** Real path of the workspace: a session recorded elsewhere must not be resumed. */
  workspace: string;
  /** The target's `runtime.session_path`, where its session files live. */
  sessionPath?: string;
  /** Template values besides `{session_id}` / `{resume_session}` (prompt, model…). */
  values: TemplateValues;
}

/** A resume decision: the argv to run, or why native resume is not possible. */
export type ResumePlan = { argv: string[]; sessionFile?: string } | { reason: string };

/** A runner plugin: spawns and frames a target's process. */
export interface RunnerPlugin<O = unknown> {
  kind: 'runner';
  meta: PluginMeta;
  /** Output formats it runs. */
  outputFormats: readonly OutputFormat[];
  /** True when it implements native session resume / session monitoring. */
  nativeSession?: boolean;
  /** How it can pass a prompt: argv always; `stdin` when it honours `RunnerSpec.stdinFile`.
   * Unset: argv only (a prompt too long for argv is then refused before spawning). */
  promptDelivery?: PromptChannels;
  /** True when it runs an attempt inside `RunnerSpec.sandbox`. A sandboxed target never runs on
   * a runner without it (the attempt is refused). */
  sandbox?: boolean;
  options?: O;
  start(spec: RunnerSpec): Awaitable<RunHandle>;
  /**
   * Resumes watching a live attempt (same pid + start token + marker per its locator):
   * tailing restarts at the offsets recorded in stream.log. Returns undefined when that
   * process is gone (the caller then judges the attempt from its files).
   */
  reattach(locator: AttemptLocator, options: ReattachOptions): Awaitable<RunHandle | undefined>;
  /**
   * Plans resuming a native session (runners with `nativeSession`): the resume argv, or why
   * not — e.g. the session file belongs to another workspace. The dispatcher never builds a
   * resume command itself.
   */
  planResume?(request: ResumeRequest): Awaitable<ResumePlan>;
  dispose?(): Awaitable<void>;
}
