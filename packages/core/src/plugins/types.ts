import type { PermissionLevel } from '../catalog/constants.js';
import type { AttemptUsage } from '../cost/usage.js';
import type { AttemptClass, FailureReason } from './failure-class.js';

/**
 * How an agent's plugin puts a permission level into its CLI's argv (`command` or
 * `resume_command`): where the flags go is the plugin's knowledge (an option before a
 * subcommand, or at the end). Core never names the flags.
 */
export type PermissionArgs = (level: PermissionLevel, argv: readonly string[]) => string[];

/** A value or a promise of it: plugin hooks may be sync or async. */
export type Awaitable<T> = T | Promise<T>;

/** Identity every plugin carries. */
export interface PluginMeta {
  /** Unique name, e.g. `@switchyard/classifier-codex` or `my-classifier`. */
  name: string;
  version?: string;
}

/** A terminal event a JSONL runner recognised (error/fatal type or severity, failed status…). */
export interface TerminalEvent {
  /** 1-based line number in the stream where the event was read. */
  line: number;
  /** The raw line, exactly as the agent printed it (trimmed of the line break). */
  raw: string;
  /** The parsed JSON object. */
  event: Record<string, unknown>;
  /** Why the runner considers it terminal, e.g. `type=error`, `status=failed+code`. */
  reason: string;
}

/**
 * What classifiers see of a finished attempt: terminal evidence only. Never the model's
 * prose as a whole, never files the agent read.
 */
export interface TerminalEvidence {
  /** Catalog `agent` identity of the target, e.g. `claude-code`. */
  agent: string;
  outputFormat: 'text' | 'jsonl';
  exitCode: number | null;
  signal: string | null;
  /** Last lines of stderr (at most a few hundred), oldest first. */
  stderrTail: string[];
  /** Last lines of stdout (at most a few hundred), oldest first. For text output this is the
   * only place some CLIs print their final error. */
  stdoutTail: string[];
  /** Terminal JSONL events, in stream order (empty for text output). */
  terminalEvents: TerminalEvent[];
  /** The final JSON event of the stream, when the output is JSONL (result/summary events). */
  lastEvent?: Record<string, unknown>;
  /** Lines that announced an internal retry of the agent CLI (not progress), newest last. */
  retryLines: string[];
  /** Set when the dispatcher ended the attempt: stall watchdog, retry loop, time limit, or cancel. */
  endedBy?: 'stall' | 'retry-loop' | 'time-limit' | 'cancel';
  /** The agent CLI's version as its preflight `--version` printed it, when known. */
  agentVersion?: string;
}

/** A classifier's verdict. */
export interface Classification {
  class: AttemptClass;
  confidence: 'certain' | 'likely' | 'weak';
  /** The exact lines that decided it (copied from the evidence, not paraphrased). */
  evidence: string[];
  /** When the evidence names when a quota resets: an ISO-8601 instant. */
  retryAfter?: string;
  /** What the class alone does not say, e.g. `authentication` for a rejected API key. */
  reason?: FailureReason;
  /** Which classifier decided (filled in by the classifier chain). */
  classifier?: string;
}

/** Context a classifier gets besides the evidence. */
export interface ClassifyContext {
  /** The instant the attempt ended; relative reset times ("resets in 5m") count from it. */
  endedAt: Date;
  /** IANA timezone for wall-clock reset times without a zone ("resets 2:30pm"). */
  timeZone: string;
}

/**
 * How an agent CLI takes a prompt too long for one argv element (declared by the agent's
 * plugin, which knows the CLI). `stdin`: the CLI reads the prompt from standard input; the
 * `{prompt}` argv element becomes `argvPrompt` (e.g. `-`, or a short line the CLI appends to
 * what it read), or is dropped when `argvPrompt` is null.
 */
export interface AgentPromptInput {
  stdin?: { argvPrompt: string | null };
}

/**
 * A path an agent CLI writes outside its working folder (its config, sessions, caches): kept
 * writable in a sandbox. `~` is the agent's HOME. A `dir` is created when missing (as the CLI
 * itself would at its first start); a `file` is writable only when it exists.
 */
export interface AgentWritablePath {
  path: string;
  kind: 'dir' | 'file';
}

/** A classifier plugin: maps terminal evidence to a class, or returns nothing to pass. */
export interface ClassifierPlugin<O = unknown> {
  kind: 'classifier';
  meta: PluginMeta;
  /** Catalog `agent` identities served, or `'*'` for every agent (generic classifiers run last). */
  agents: readonly string[] | '*';
  /**
   * The agent CLI release lines the rules were verified on, e.g. `['2.1.19x', '2.1.33x']`
   * (`x`: any further digits). Another version still runs; the dry run warns about it.
   */
  verifiedVersions?: readonly string[];
  options?: O;
  classify(
    evidence: TerminalEvidence,
    context: ClassifyContext,
  ): Awaitable<Classification | undefined>;
  /**
   * True when a live output line only announces an internal retry of the agent CLI
   * ("Retrying in 5s…", "reconnecting…"). Such lines are not progress: an attempt that prints
   * nothing else for long is ended and classified by what these lines say.
   */
  isRetryLine?(line: string): boolean;
  /**
   * Tokens and cost the agent reported for the attempt (from its final event or summary),
   * or undefined when the evidence holds none. Summed per task, target and run.
   */
  usage?(evidence: TerminalEvidence): AttemptUsage | undefined;
  /** How the agent's CLI takes a prompt too long for argv; unset: argv only. */
  promptInput?: AgentPromptInput;
  /**
   * The paths the agent's CLI writes outside its working folder, given the agent's environment
   * (HOME and the CLI's own variables, e.g. one that moves its config folder). A sandboxed
   * attempt may write them and nothing else but its worktree, attempt and task folders.
   */
  sandboxWritable?(env: Readonly<Record<string, string | undefined>>): readonly AgentWritablePath[];
  /**
   * A catalog target's `permissions` level ("edit", "edit+shell", "all") as the agent CLI's
   * flags: returns the argv (`command` or `resume_command`) with them in the place the CLI
   * reads them. Unset: targets of this agent cannot use `permissions`.
   */
  permissionArgs?: PermissionArgs;
  dispose?(): Awaitable<void>;
}

/**
 * Turns an agent's raw output into the readable transcript kept as `normalized-output.log`
 * (assistant text, tool calls, errors). One per agent format; a generic one serves the rest.
 */
export interface TranscriptPlugin {
  kind: 'transcript';
  meta: PluginMeta;
  /** Catalog `agent` identities served, or `'*'`. */
  agents: readonly string[] | '*';
  /** A readable line (or lines) for one JSONL event, or undefined to skip it. */
  formatEvent(event: Record<string, unknown>): string | undefined;
  /** A readable line for one text-mode output line, or undefined to keep it as is. */
  formatLine?(line: string, stream: 'stdout' | 'stderr'): string | undefined;
}
