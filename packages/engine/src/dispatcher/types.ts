import type { Catalog, ResolvedCatalog, RoutingConfig } from '@switchyard/catalog';
import type {
  AgentCommitPolicy,
  CostBudget,
  PriceTable,
  SandboxConfig,
  WriteSetPolicy,
} from '@switchyard/config';
import type {
  AgentWritablePath,
  ClaimPort,
  ClassifierPlugin,
  OutputFormat,
  RunEvent,
  RunHandle,
  RunnerPlugin,
  SecretValue,
  SharedBacklogPort,
  SourceGuard,
  Store,
  TaskState,
  TranscriptPlugin,
  WorkspaceIsolation,
} from '@switchyard/core';
import type { WorkspaceLock } from '@switchyard/store-fs';
import type { LoadedTask, ProjectGate } from '@switchyard/tasks';
import type { Clock, DeferredWrites } from '@switchyard/utils';
import type { EventBus } from '../events/event-bus.js';
import type { PromptTemplates } from '../prompts/templates.js';
import type { CatalogFacts } from '../selection/decide.js';
import type { RetryPolicy } from '../selection/on-failure.js';
import type { ParkPolicy } from '../selection/park.js';
import type { WorkLogWriter } from './landing/work-log-writer.js';
import type { SharedRun } from './shared/shared-run.js';
import type { TaskLeases } from './shared/task-leases.js';

/** A command the dispatcher needs run without a shell (definition-of-done gates). */
export interface CommandRequest {
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  /** Where the combined output is written in full (kept as evidence). */
  outputFile: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** How such a command ended. */
export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  /** Standard output (may be truncated to a bounded size by the executor). */
  stdout: string;
  /** Last lines of stdout+stderr, for the correction shown to the worker. */
  tail: string[];
  timedOut: boolean;
  /** Set when the command could not be started at all (e.g. ENOENT). */
  spawnError?: string;
}

/** The set-up of each new task worktree (config `isolation.setup`, `setupTimeoutSeconds`). */
export interface WorktreeSetup {
  /** argv commands, run in order in the worktree's workdir (no shell). */
  commands: readonly (readonly string[])[];
  /** Longest run of one command. */
  timeoutMs: number;
}

/** Runs a command; provided by the CLI (core spawns nothing). */
export type CommandRunner = (request: CommandRequest) => Promise<CommandResult>;

/**
 * Commands the dispatcher runs in the source checkout itself (gates without isolation, the
 * definition of done on the source after an apply, `runner: local`): while one runs, changes
 * in the source may be its own, so an attempt's check only reports them (see source-watch.ts).
 */
export interface SourceCommands {
  running: number;
  /** Counts every start; an attempt that saw it move had one beside it. */
  started: number;
}

/** The plugin lookups the dispatcher needs (a `PluginSet` provides them). */
export interface DispatcherPlugins {
  runnerFor(format: OutputFormat, needs?: { nativeSession?: boolean }): RunnerPlugin;
  classifiersFor(agent: string): ClassifierPlugin[];
  transcriptFor(agent: string): TranscriptPlugin | undefined;
  isRetryLineFor(agent: string): (line: string) => boolean;
  /** The paths an agent's CLI writes outside its working folder (for its sandbox). */
  sandboxWritableFor?(
    agent: string,
    env: Readonly<Record<string, string | undefined>>,
  ): AgentWritablePath[];
}

/** How agent attempts are contained (project config `sandbox` and `sandboxTargets`). */
export interface DispatcherSandbox {
  /** The project's sandbox (config `sandbox`). */
  config: SandboxConfig;
  /** Overrides by catalog target id (config `sandboxTargets`). */
  targets: Readonly<Record<string, SandboxConfig>>;
  /** The bwrap executable the run's sandbox check found working. */
  command: string;
}

/** What a run's dispatcher asks of a human's hold on it (`RunControl`, control/). */
export interface DispatchControl {
  /** The dispatcher starts being controlled; returns the detach it calls when it ends. */
  attach(ctx: DispatchContext, stop: () => void): () => void;
  /** The scheduling loop's wake-up (a retried task may start at once). */
  bindWake(wake: () => void): void;
}

/** A task of this run: its contract (from the PLAN files) and its durable state. */
export interface TaskRuntime {
  readonly id: string;
  readonly group: string;
  /** Its contract: the plans the dispatcher admitted (see admitted-plan.ts), re-built when a
   * plan loop starts. */
  task: LoadedTask;
  /** The task as its plan files read at the run's start (what a human's retry admits). */
  files?: LoadedTask;
  state: TaskState;
  /** The store version of `state` as last read or written (0: never stored). */
  version: number;
  /** The task's writes in order (each waits for the one before: compare-and-set). */
  persisting?: Promise<void>;
  /** A pure transition made in memory that the task's next `persist` writes (see
   * `persistLater`). */
  unsaved?: boolean;
  /** True while a stage of the task runs (the task holds a parallel slot). */
  busy: boolean;
  /** Emitted task.admitted in this run already. */
  announced: boolean;
  /** The last waiting reason announced (task.waiting is emitted when it changes). */
  waitingOn?: string;
  /** The claim conflict last announced at claim time (a holder admission could not see). */
  claimWait?: string;
  /** Set when a control-plane failure (e.g. the work log cannot be written) holds the task
   * for the rest of this run: it is not blocked, nothing is charged, the run exits 1. */
  halted?: string;
  /** Set when the user moved the unfinished task's folder to the archive (this path): its
   * leftover attempts are recovered, then the task is settled, never run on. */
  archivedByHand?: string;
  /** The project config declares `task` gates: the task runs the project-gates stage. */
  hasProjectGates?: boolean;
  /** This run said already that the task keeps the shared workspace it started in. */
  sharedWorkspaceAnnounced?: boolean;
  /** A human asked to stop the task (from the monitor): its running attempt is cancelled
   * (counting for nothing) and the task blocks when its step ends. */
  stopRequested?: { by?: string; note?: string };
  /** The task's `notBefore` on this run's monotonic clock (see `task-wait.ts`). */
  wait?: { notBefore: string; monotonicUntil: number };
  /** Target cool-downs and parks this task saw that the store does not hold yet: written
   * (fenced) by the next `persist`, before the task's state (see `shared-targets.ts`). */
  targetFaults?: TargetFault[];
}

/** A target cooling down (or parked) until an instant, for every task of the store. */
export interface TargetFault {
  target: string;
  until: string;
  reason: string;
  park?: boolean;
}

/** What every stage of a run shares. One per `runDispatcher` call. */
export interface DispatchContext {
  readonly options: DispatcherOptions;
  /** Real path of the workspace. */
  readonly workspace: string;
  readonly stateDir: string;
  readonly catalog: Catalog;
  readonly catalogFacts: CatalogFacts;
  /** Every durable fact of the run goes through it. */
  readonly store: Store;
  /** `store.claims`. */
  readonly claims: ClaimPort;
  /** A backlog shared with other machines (`options.backlog`): what this run took from it. */
  readonly shared?: SharedRun;
  /** The leases this run holds on its tasks (every task write carries the fence). */
  readonly leases: TaskLeases;
  /** In-memory mirror of the held claims (path -> task); the store is the durable copy. */
  readonly claimIndex: Map<string, string>;
  readonly bus: EventBus;
  readonly workLog: WorkLogWriter;
  readonly tasks: Map<string, TaskRuntime>;
  /** Tasks archived complete (found at start, or archived in this run). */
  readonly archived: Set<string>;
  /** Running attempts by attempt id, to stop them on interrupt. */
  readonly handles: Map<string, RunHandle>;
  /** Control-plane failures seen (each keeps the run from exiting 0). */
  readonly controlFailures: string[];
  /** Credential-looking environment values and every `${VAR}` the catalog expands: redacted
   * from prompts, evidence, state, events and work logs. */
  readonly secrets: readonly SecretValue[];
  readonly signal: AbortSignal;
  /** Aborted with a second stop request: the apply under way is rolled back (see types.ts). */
  readonly applyAbort: AbortSignal;
  /** The dispatcher's own commands running in the source checkout (see source-watch.ts). */
  readonly sourceCommands: SourceCommands;
  /** When this run started (ms since the epoch): the run's cost counts attempts since. */
  readonly runStartedAt?: number;
  /** Wall time: timestamps, provider reset instants. */
  now(): Date;
  /** Monotonic ms (see `clock/clock.ts`): durations, time limits and in-run waits. */
  monotonicMs(): number;
  /**
   * The run's deferred writes, on its clock: a running attempt's PID (`persistWithin`) and
   * the transitions of tasks waiting for a slot (waiting-writes.ts). Settled when the
   * scheduling loop ends; `finalizeRun` writes what they left.
   */
  readonly deferred: DeferredWrites;
}

/** Everything a dispatcher run is configured with. */
export interface DispatcherOptions {
  /** Workspace root (any path; the run uses its real path). */
  workspace: string;
  /** Where every durable fact of the run goes (the CLI opens the file store of the
   * workspace once, under the workspace lock). The engine never builds one itself. */
  store: Store;
  /** How long a task's lease lasts without renewal (default 30 s; renewed at a third). */
  leaseMs?: number;
  /**
   * A backlog shared with dispatchers on other machines (a database store): this run works
   * only on the tasks it takes from it, waits for the others' tasks, and ends when every
   * in-scope task is archived or blocked there (see `shared-backlog.ts`).
   */
  backlog?: SharedBacklogPort;
  catalog: ResolvedCatalog;
  retry: RetryPolicy;
  /** Config `park`: how long and how often a stage may wait for quota resets (default
   * `DEFAULT_PARK_POLICY`: 6 h, 10 parks). */
  park?: ParkPolicy;
  /** No real progress for this long ends an attempt as stalled. */
  stallTimeoutMs: number;
  /** Only retry announcements for this long ends an attempt (default: stallTimeoutMs). */
  retryLoopTimeoutMs?: number;
  /** Default time limit of one attempt (a target's `runtime.max_attempt_seconds` wins);
   * unset = none. */
  maxAttemptMs?: number;
  /** Most bytes an attempt's capture files keep together once it ended (head and tail;
   * default 8 MiB; config `evidence.maxAttemptBytes`). */
  maxAttemptEvidenceBytes?: number;
  /** Active task stages across the workspace; 0 = unlimited. */
  maxParallel: number;
  /** Worktree isolation: approved tasks that may wait for the (serialized) apply before no
   * new task starts; 0 = unlimited. Default: `maxParallel`. */
  maxApplyQueue?: number;
  /** `--task-group`: only this group's tasks are run. */
  taskGroup?: string;
  /** `--retry-blocked`: blocked tasks in scope get another chance. */
  retryBlocked?: boolean;
  /** `switchyard retry <task>…`: these blocked tasks (ids) get another chance. */
  retryTasks?: readonly string[];
  /** `--with TARGET`: the target for every stage without a PLAN pin. */
  runWith?: string;
  plugins: DispatcherPlugins;
  runCommand: CommandRunner;
  prompts: PromptTemplates;
  /** The clocks the run reads (default: the system's); a test passes a fake one. */
  clock?: Clock;
  /** Receives every event (renderer, --json); events also go to the store's event log. */
  onEvent?: (event: RunEvent) => void;
  /** Aborted on SIGINT/SIGTERM: no task is admitted any more, running agents and gates are
   * stopped, queued applies stay queued (they apply on the next run), the apply under way is
   * finished; state kept, exit 130. */
  signal?: AbortSignal;
  /** Aborted on a second SIGINT/SIGTERM: the apply under way (its check on the source
   * included) stops and is rolled back through its journal. */
  abortApply?: AbortSignal;
  /** A human's hold on the run (the monitor's actions: retry, skip, resolve, stop). */
  control?: DispatchControl;
  /** IANA zone for wall-clock reset times in provider errors (default: the system zone). */
  timeZone?: string;
  /** Grace between SIGTERM and SIGKILL when stopping an agent. */
  killGraceMs?: number;
  /** Project config `cost`: budgets that block a task once its (or the run's) cost passes them. */
  costBudget?: CostBudget;
  /** Project config `prices`: estimates a cost for attempts that report only tokens. */
  prices?: PriceTable;
  /** The workspace lock, when the caller took it early (so a second dispatcher fails at
   * once, before preflights); released when the run ends. Taken by the run otherwise. */
  lock?: WorkspaceLock;
  /** Worktree isolation (a git worktree per task); absent = isolation "none". */
  isolation?: WorkspaceIsolation;
  /** Watches the source checkout around every agent attempt (a git workspace, whatever the
   * isolation): what an attempt changed there is put back and sent to the worker as a
   * correction. Absent outside git. */
  sourceGuard?: SourceGuard;
  /** Project config `writeSet` (default "correct"). */
  writeSetPolicy?: WriteSetPolicy;
  /** Project config `corrections.maxRepeats`: the same correction this many times in a row
   * on one check stage blocks the task ("the agent repeats itself"); 0 = only the budget
   * (default 3). */
  maxRepeatedCorrections?: number;
  /** Project config `isolation.setup`: commands run in each new worktree before its first stage. */
  worktreeSetup?: WorktreeSetup;
  /** Project config `isolation.maxDiskBytes`: no task starts a new worktree while the worktrees
   * take this much disk or more. */
  worktreeDiskCap?: number;
  /** Project config `isolation.agentCommits` (default "warn"). */
  agentCommitPolicy?: AgentCommitPolicy;
  /** The agent CLI version of each target (by target id), from `--version` before the run:
   * recorded in each attempt's locator and evidence. */
  agentVersions?: Readonly<Record<string, string>>;
  /** The project config's gates (config `gates`; never from a plan). */
  projectGates?: readonly ProjectGate[];
  /** True (the default) when the task's working tree is the source (isolation `none`): the
   * `source` gates then run right after the `task` gates. Under worktree isolation they run
   * after apply instead (see `checkSourceAfterApply`). */
  sourceIsWorkingTree?: boolean;
  /** Config `review.fixupTarget`: the catalog target that applies MINOR-only review findings
   * (the fixup stage); unset = they stay accepted notes. */
  fixupTarget?: string;
  /** Config `routing`: PLAN `complexity:` / `risk:` → route and review mode (default
   * `DEFAULT_ROUTING`). */
  routing?: RoutingConfig;
  /** Sandboxing of agent attempts; absent = none (every target unsandboxed). */
  sandbox?: DispatcherSandbox;
}

/** A blocked task in the run summary. */
export interface BlockedSummary {
  task: string;
  reason: string;
}

/** How the run ended. */
export interface DispatchResult {
  /** 0 done, 1 control-plane failure, 3 blocked tasks, 130 interrupted. */
  exitCode: 0 | 1 | 3 | 130;
  archived: string[];
  blocked: BlockedSummary[];
  /** Control-plane failures that kept the run from exiting 0. */
  controlFailures: string[];
  elapsedMs: number;
}

/** The catalog as decisions see it (a string source, e.g. `flag:/abs/catalog.json`). */
export function catalogSourceLabel(catalog: ResolvedCatalog): string {
  const { kind, path } = catalog.source;
  return path ? `${kind}:${path}` : kind;
}
