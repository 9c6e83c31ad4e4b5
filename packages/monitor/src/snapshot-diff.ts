import type { UsageTotals } from '@switchyard/runner-kit';
import type { MonitorSnapshot, MonitorTask } from './snapshot.js';

/** Run-level fields of a snapshot that a patch replaces whole when they change. */
const TOP_KEYS = [
  'workspace',
  'dispatcher',
  'counts',
  'groups',
  'claims',
  'runs',
  // open escalations: a new one appears, a resolved one goes, without a reload
  'escalations',
  // YAML plan titles, goals and lanes
  'plans',
  // the worktrees' disk use, as the run measures it
  'worktreeDisk',
] as const;
type TopKey = (typeof TOP_KEYS)[number];

/**
 * What changed between two snapshots a page holds: tasks new or changed (whole), tasks gone,
 * run-level fields replaced whole, and the per-task usage entries that changed. A page applies
 * it to the snapshot numbered `base` and then holds snapshot `seq`.
 */
export interface MonitorPatch {
  seq: number;
  base: number;
  generatedAt: string;
  set: Partial<Pick<MonitorSnapshot, TopKey>> & {
    /** Usage totals of the run and per target (per task: see `usageByTask`). */
    usage?: Omit<MonitorSnapshot['usage'], 'byTask'>;
  };
  tasks: MonitorTask[];
  removed: string[];
  /** Changed per-task totals; `null` removes one. */
  usageByTask: Record<string, UsageTotals | null>;
}

/** A snapshot as sent to a new page: numbered, so the patches that follow apply to it. */
export type NumberedSnapshot = MonitorSnapshot & { seq: number };

/**
 * Keeps what the open pages hold (a fingerprint per task and per run-level field) and turns
 * each new snapshot into the patch from the previous one. A task's fingerprint is its fields
 * without history plus its history length: histories only grow (events are appended and never
 * edited), so comparing them costs nothing per event already sent.
 */
export class SnapshotDiffer {
  private seq = 0;
  private tasks = new Map<string, string>();
  private top = new Map<string, string>();
  private byTask = new Map<string, string>();

  /** Number of the snapshot last recorded. */
  get current(): number {
    return this.seq;
  }

  /**
   * Records `snapshot` as what pages hold next and returns the patch to it, or undefined when
   * nothing a page shows changed (then the numbering stays). `reset` drops what was recorded
   * (the event log was replaced): the caller sends the snapshot whole.
   */
  next(snapshot: MonitorSnapshot, reset = false): MonitorPatch | undefined {
    if (reset) {
      this.tasks.clear();
      this.top.clear();
      this.byTask.clear();
    }
    const patch: MonitorPatch = {
      seq: this.seq + 1,
      base: this.seq,
      generatedAt: snapshot.generatedAt,
      set: {},
      tasks: [],
      removed: [],
      usageByTask: {},
    };
    let changed = false;
    for (const key of TOP_KEYS) {
      const json = JSON.stringify(snapshot[key]);
      if (this.top.get(key) === json) continue;
      this.top.set(key, json);
      (patch.set as Record<string, unknown>)[key] = snapshot[key];
      changed = true;
    }
    const { byTask, ...usage } = snapshot.usage;
    const usageJson = JSON.stringify(usage);
    if (this.top.get('usage') !== usageJson) {
      this.top.set('usage', usageJson);
      patch.set.usage = usage;
      changed = true;
    }
    const seenUsage = new Set<string>();
    for (const [id, totals] of Object.entries(byTask)) {
      seenUsage.add(id);
      const json = JSON.stringify(totals);
      if (this.byTask.get(id) === json) continue;
      this.byTask.set(id, json);
      patch.usageByTask[id] = totals;
      changed = true;
    }
    for (const id of this.byTask.keys()) {
      if (seenUsage.has(id)) continue;
      this.byTask.delete(id);
      patch.usageByTask[id] = null;
      changed = true;
    }
    const seen = new Set<string>();
    for (const task of snapshot.tasks) {
      seen.add(task.id);
      const print = fingerprint(task);
      if (this.tasks.get(task.id) === print) continue;
      this.tasks.set(task.id, print);
      patch.tasks.push(task);
      changed = true;
    }
    for (const id of this.tasks.keys()) {
      if (seen.has(id)) continue;
      this.tasks.delete(id);
      patch.removed.push(id);
      changed = true;
    }
    if (!changed && !reset) return undefined;
    this.seq += 1;
    return patch;
  }
}

function fingerprint(task: MonitorTask): string {
  const { history, ...rest } = task;
  const last = history.at(-1);
  return `${JSON.stringify(rest)}#${history.length}#${last ? `${last.type}@${last.at}` : ''}`;
}
