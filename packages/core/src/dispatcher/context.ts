import type { Catalog } from '../catalog/schema.js';
import type { ClaimStore } from '../claims/claim-store.js';
import type { EventBus } from '../events/event-bus.js';
import type { RunHandle } from '../plugins/runner-types.js';
import type { SecretValue } from '../redact/redact.js';
import type { CatalogFacts } from '../selection/decide.js';
import type { TaskState } from '../state/state-schema.js';
import type { StateStore } from '../state/state-store.js';
import type { LoadedTask } from '../workspace/load.js';
import type { DispatcherOptions } from './types.js';
import type { WorkLogWriter } from './work-log-writer.js';

/** A task of this run: its contract (from the PLAN files) and its durable state. */
export interface TaskRuntime {
  readonly id: string;
  readonly group: string;
  /** Re-read when the plan loop changes. */
  task: LoadedTask;
  state: TaskState;
  /** True while a stage of the task runs (the task holds a parallel slot). */
  busy: boolean;
  /** Emitted task.admitted in this run already. */
  announced: boolean;
  /** The last waiting reason announced (task.waiting is emitted when it changes). */
  waitingOn?: string;
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
  /** The task's `notBefore` on this run's monotonic clock (see `task-wait.ts`). */
  wait?: { notBefore: string; monotonicUntil: number };
}

/** What every stage of a run shares. One per `runDispatcher` call. */
export interface DispatchContext {
  readonly options: DispatcherOptions;
  /** Real path of the workspace. */
  readonly workspace: string;
  readonly stateDir: string;
  readonly catalog: Catalog;
  readonly catalogFacts: CatalogFacts;
  readonly store: StateStore;
  readonly claims: ClaimStore;
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
  /** When this run started (ms since the epoch): the run's cost counts attempts since. */
  readonly runStartedAt?: number;
  /** Wall time: timestamps, provider reset instants. */
  now(): Date;
  /** Monotonic ms (see `clock/clock.ts`): durations, time limits and in-run waits. */
  monotonicMs(): number;
}

/** Persists a task's state (atomic replace). */
export function persist(ctx: DispatchContext, rt: TaskRuntime): Promise<void> {
  return ctx.store.write(rt.state);
}
