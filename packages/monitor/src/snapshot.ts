import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isolationSettings, loadProjectConfig, type PriceTable } from '@switchyard/config';
import {
  agentTaskDir,
  type BacklogView,
  type RunEvent,
  type Store,
  type TaskState,
} from '@switchyard/core';
import {
  buildStatus,
  type DispatcherStatus,
  gatherStatus,
  openEscalations,
  type StatusFacts,
  type StatusReport,
  worktreeBytes,
} from '@switchyard/engine';
import type { UsageSummary } from '@switchyard/runner-kit';
import { loadWorkspace, parsePlanFile, type WorkspaceModel } from '@switchyard/tasks';
import { formatBytes, isSameProcessAlive } from '@switchyard/utils';
import { applyBacklog } from './shared-tasks.js';
import { assignDepths, type MonitorTask, type TaskPlanFacts, taskCards } from './snapshot-tasks.js';
import { StoreFollower } from './store-follower.js';
import { type PlanInfo, readYamlPlans } from './yaml-plans.js';

/** A shared store's facts: task states, claims, open escalations and its backlog. */
export type SharedFacts = Omit<StatusFacts, 'events'> & { backlog?: readonly BacklogView[] };

export type { MonitorTask, MonitorTaskState } from './snapshot-tasks.js';

/** Everything the page shows, rebuilt from persisted state on every change. */
export interface MonitorSnapshot {
  schema_version: 1;
  generatedAt: string;
  workspace: string;
  dispatcher: DispatcherStatus;
  counts: StatusReport['counts'];
  groups: string[];
  tasks: MonitorTask[];
  claims: { path: string; task: string; since: string }[];
  usage: UsageSummary;
  /** Run-level events (run.started/finished, control failures), oldest first. */
  runs: RunEvent[];
  /** Blocked tasks waiting for a human's answer (`switchyard resolve`), oldest first. */
  escalations: StatusReport['escalations'];
  /** YAML plans by task group: title, goal and lanes (a group run from PLAN.md folders has none). */
  plans: Record<string, PlanInfo>;
  /** Disk the task worktrees take, as the run last measured it (0 worktrees: none measured). */
  worktreeDisk: WorktreeDiskSummary;
}

/** The worktrees' disk use on the page: figures, and the line the header shows. */
export interface WorktreeDiskSummary {
  worktrees: number;
  bytes: number;
  sharedBytes: number;
  /** Config `isolation.maxDiskBytes`. */
  cap?: number;
  /** `2 worktree(s): 1.2 GiB (+ 800.0 MiB shared) of the 5.0 GiB cap`. */
  text: string;
}

const TASK_EVENTS = new Set<RunEvent['type']>([
  'task.admitted',
  'task.waiting',
  'stage.decided',
  'attempt.started',
  'attempt.finished',
  'attempt.retry-scheduled',
  'target.failover',
  'gate.finished',
  'review.verdict',
  'task.plan-loop',
  'task.blocked',
  'task.archived',
  'task.escalated',
  'task.parked',
  // a human's retry, skip, resolve or stop (from the page)
  'human.action',
]);
/** Longest time parsed plans are reused (a plan edited by hand shows after at most this). */
const PLAN_MAX_AGE_MS = 60_000;
/** Events after which plans on disk differ (a new PLAN-n, an archived folder, a new run). */
const PLAN_EVENTS = new Set<RunEvent['type']>(['task.plan-loop', 'task.archived', 'run.started']);
const RUN_EVENTS = new Set<RunEvent['type']>(['run.started', 'run.finished', 'control.failure']);

/** Reads a workspace's stored state into snapshots; caches what never changes. */
export class SnapshotReader {
  /** Dependencies and write sets of archived tasks (their plans do not change once archived). */
  private readonly archivedPlans = new Map<string, { dependsOn: string[]; writeSet: string[] }>();
  private prices: PriceTable | undefined;
  /** Config `isolation.maxDiskBytes`. */
  private diskCap: number | undefined;
  /** The store's events, task states and claims, followed incrementally. */
  private readonly stored: StoreFollower;
  /** Parsed plans, reused until a plan may have changed (see {@link invalidatePlans}). */
  private model: WorkspaceModel | undefined;
  /** YAML plans of the sessions, read again with the model (a new run may bring a new plan). */
  private plans: Record<string, PlanInfo> = {};
  /** Plan-changing events (new plan loop, archive, run start) seen when the model was read. */
  private modelMark = '';
  private modelAt = 0;
  /** Task histories and run events, grown with each event read (never rebuilt). */
  private history = new Map<string, RunEvent[]>();
  private runs: RunEvent[] = [];
  private planMark = 0;
  private processed = 0;
  /** The event log's generation the histories were built from (see logGeneration). */
  private generation = 0;
  /** The workspace lock as the last snapshot found it: a poll notices its holder dying. */
  private lock: ReturnType<typeof gatherStatus>['lock'];

  /** On a shared store: every machine's facts, kept current by the server (see useStore). */
  private shared: StatusFacts | undefined;
  /** On a shared store: every machine's tasks and where each stands. */
  private backlog: readonly BacklogView[] | undefined;

  constructor(
    readonly workspace: string,
    private readonly store: Store,
  ) {
    this.stored = new StoreFollower(store);
  }

  /** Attempt id -> folder, from the event log (tails are resolved here, never from a request). */
  readonly attemptDirs = new Map<string, string>();

  /** The stored state of one task as last read (undefined before its first state). */
  stateOf(task: string): TaskState | undefined {
    return this.shared
      ? this.shared.states.find((s) => s.task === task)
      : this.stored.states.get(task);
  }

  /**
   * The state of one task as stored, for `/raw/state`: on this workspace's store with its
   * version as `revision`, as the file store writes it; on a shared store as the store has it.
   */
  rawStateOf(task: string): (TaskState & { revision?: number }) | undefined {
    if (this.shared) return this.stateOf(task);
    const state = this.stored.states.get(task);
    const revision = this.stored.versions.get(task);
    return state && revision !== undefined ? { ...state, revision } : state;
  }

  /** Every event read so far, oldest first. */
  get events(): readonly RunEvent[] {
    return this.shared?.events ?? this.stored.events;
  }

  /**
   * Reads what changed in the store since the last read (events, task states, claims) and
   * whether the dispatcher that held the workspace died since the last snapshot; true when
   * anything did, so the page needs a new snapshot. On a shared store the server feeds the
   * facts instead (see useStore).
   */
  async refresh(): Promise<boolean> {
    let changed = false;
    const lock = this.lock;
    if (lock?.alive && !isSameProcessAlive(lock.holder)) {
      this.lock = { ...lock, alive: false };
      changed = true;
    }
    // Nothing is read (or made) in a folder that is no workspace: the snapshot says so.
    if (this.shared || !existsSync(agentTaskDir(this.workspace))) return changed;
    return (await this.stored.pull()) || changed;
  }

  /**
   * Reads a shared store's facts from now on instead of this workspace's files: task states,
   * claims and open escalations as last read from the store, and its event log as followed
   * (an array that only grows). The backlog says where each task stands (whichever machine
   * ran it); this clone's plans add what they know (write sets, plan loops).
   */
  useStore({ backlog, ...facts }: SharedFacts, events: readonly RunEvent[]): void {
    this.shared = { ...facts, events };
    this.backlog = backlog;
  }

  /** On a shared store: the machine that holds (or last held) a task of the backlog. */
  holderOf(task: string): string | undefined {
    return this.backlog?.find((entry) => entry.task === task)?.holder;
  }

  /** The page reads a shared store (the task files of other machines are not here). */
  get onStore(): boolean {
    return this.shared !== undefined;
  }

  /** Plans must be parsed again on the next read (task folders added, moved or edited). */
  invalidatePlans(): void {
    this.model = undefined;
  }

  /** Loads the project config's price table once (a bad config only loses the estimates). */
  async init(): Promise<void> {
    try {
      const { config } = await loadProjectConfig(this.workspace);
      this.prices = config.prices;
      this.diskCap = isolationSettings(config.isolation).maxDiskBytes;
    } catch {
      this.prices = {};
    }
  }

  /**
   * Times the store's event log was read again from the start since this reader started (it
   * was replaced): the histories were rebuilt, so pages need the snapshot whole.
   */
  get logGeneration(): number {
    return this.generation;
  }

  /** Files the histories and run events in with the events appended since the last read. */
  private follow(events: readonly RunEvent[]): void {
    if (!this.shared && this.stored.generation !== this.generation) {
      this.generation = this.stored.generation;
      this.history = new Map();
      this.runs = [];
      this.planMark += 1; // plans may differ too (a new run)
      this.processed = 0;
    }
    for (; this.processed < events.length; this.processed += 1) {
      const event = events[this.processed]!;
      if (PLAN_EVENTS.has(event.type)) this.planMark += 1;
      if (RUN_EVENTS.has(event.type)) this.runs.push(event);
      if (event.type === 'attempt.started') this.attemptDirs.set(event.attempt, event.attemptDir);
      if (!TASK_EVENTS.has(event.type) || !('task' in event) || event.task === undefined) continue;
      const list = this.history.get(event.task) ?? [];
      this.history.set(event.task, list);
      list.push(compact(event));
    }
  }

  /** A snapshot of the workspace now: what changed in the store is read first. */
  async read(now = new Date()): Promise<MonitorSnapshot> {
    await this.refresh();
    this.follow(this.events);
    const mark = String(this.planMark);
    // Plans edited in place are not watched file by file: the model also expires.
    if (mark !== this.modelMark || now.getTime() - this.modelAt > PLAN_MAX_AGE_MS)
      this.model = undefined;
    if (!this.model) {
      this.model = loadWorkspace(this.workspace);
      this.plans = await readYamlPlans(this.store.sessions);
      this.modelMark = mark;
      this.modelAt = now.getTime();
    }
    const escalations = this.shared?.escalations ?? (await this.openEscalations());
    return this.build(now, this.model, escalations);
  }

  /** Open escalations of the store, or none in a folder that is no workspace (nothing made). */
  private async openEscalations(): Promise<StatusFacts['escalations']> {
    if (!existsSync(agentTaskDir(this.workspace))) return [];
    return openEscalations(this.store.escalations, this.stored.sortedStates());
  }

  /** The snapshot of what was read. */
  private build(
    now: Date,
    model: WorkspaceModel,
    escalations: StatusFacts['escalations'],
  ): MonitorSnapshot {
    const events = this.events;
    const facts = {
      states: this.shared?.states ?? this.stored.sortedStates(),
      claims: this.shared?.claims ?? this.stored.claims,
      events,
      escalations,
    };
    const input = gatherStatus(this.workspace, facts, now, { model });
    this.lock = input.lock;
    if (this.prices) input.prices = this.prices;
    if (this.diskCap) input.worktreeDiskCap = this.diskCap;
    const report = buildStatus(input);
    const tasks = taskCards({
      report,
      states: new Map(input.states.map((s) => [s.task, s])),
      plans: this.planFacts(input),
      history: this.history,
    });
    const counts = this.backlog ? applyBacklog(tasks, this.backlog).counts : report.counts;
    assignDepths(tasks);
    tasks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const groups = [...new Set(tasks.map((t) => t.group))].sort();
    return {
      schema_version: 1,
      generatedAt: now.toISOString(),
      workspace: input.workspace,
      dispatcher: report.dispatcher,
      counts,
      groups,
      tasks,
      claims: facts.claims.flatMap((c) =>
        c.paths.map((path) => ({ path, task: c.taskId, since: c.since })),
      ),
      // Per-attempt usage travels on each attempt.finished event of a task's history.
      usage: { ...report.usage, attempts: [] },
      runs: this.runs.slice(),
      escalations: report.escalations,
      plans: this.plans,
      worktreeDisk: worktreeDiskOf(input.states, this.diskCap),
    };
  }

  /** Each task's plan facts: active tasks' from the parsed plans, archived ones' from their PLAN. */
  private planFacts(input: ReturnType<typeof gatherStatus>): Map<string, TaskPlanFacts> {
    const plans = new Map<string, TaskPlanFacts>();
    for (const t of input.tasks)
      plans.set(t.id, {
        dependsOn: t.dependsOn,
        writeSet: t.writeSet,
        ...(t.maxPlanLoops !== undefined ? { maxPlanLoops: t.maxPlanLoops } : {}),
      });
    for (const id of input.archived) plans.set(id, { ...plans.get(id), ...this.archivedPlan(id) });
    return plans;
  }

  private archivedPlan(id: string): { dependsOn: string[]; writeSet: string[] } {
    const cached = this.archivedPlans.get(id);
    if (cached) return cached;
    const file = join(this.workspace, 'agent-task', 'archive', id, 'PLAN.md');
    const group = id.slice(0, id.indexOf('/'));
    let found = { dependsOn: [] as string[], writeSet: [] as string[] };
    try {
      const plan = parsePlanFile(file, { file });
      found = {
        // depends_on as written: `task` (same group) or `group/task`
        dependsOn: plan.frontMatter.dependsOn.map((d) =>
          d.raw.includes('/') ? d.raw : `${group}/${d.raw}`,
        ),
        writeSet: plan.writeSet.map((e) => e.path),
      };
    } catch {
      // an unreadable archived plan only loses its edges
    }
    this.archivedPlans.set(id, found);
    return found;
  }
}

/** The worktrees' disk use from the task states (measured by the run; nothing is walked here). */
function worktreeDiskOf(
  states: readonly TaskState[],
  cap: number | undefined,
): WorktreeDiskSummary {
  const measured = states.filter((s) => s.phase !== 'done' && s.isolation?.disk);
  const bytes = worktreeBytes(measured);
  const sharedBytes = measured.reduce((sum, s) => sum + (s.isolation?.disk?.sharedBytes ?? 0), 0);
  const text = `${measured.length} worktree(s): ${formatBytes(bytes)}${sharedBytes > 0 ? ` (+ ${formatBytes(sharedBytes)} shared)` : ''}${cap ? ` of the ${formatBytes(cap)} cap` : ''}`;
  return { worktrees: measured.length, bytes, sharedBytes, ...(cap ? { cap } : {}), text };
}

/** Longest evidence line the page gets (the raw events have it whole). */
const EVIDENCE_CHARS = 2000;

/**
 * An event as the page needs it: at most three evidence lines of {@link EVIDENCE_CHARS}, no
 * attempt folder (the server resolves tails itself). Keeps a snapshot of a long run small.
 */
function compact(event: RunEvent): RunEvent {
  const out = { ...event } as RunEvent & { evidence?: string[]; attemptDir?: string };
  if (out.evidence)
    out.evidence = out.evidence
      .slice(0, 3)
      .map((l) => (l.length > EVIDENCE_CHARS ? `${l.slice(0, EVIDENCE_CHARS)}…` : l));
  if ('attemptDir' in out) delete out.attemptDir;
  if (out.type === 'gate.finished' && out.output)
    out.output = out.output
      .slice(-20)
      .map((l) => (l.length > EVIDENCE_CHARS ? `${l.slice(0, EVIDENCE_CHARS)}…` : l));
  return out;
}
