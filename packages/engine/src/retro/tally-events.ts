import type { PriceTable } from '@switchyard/config';
import type { RunEvent } from '@switchyard/core';
import { priceUsage, roundUsd, tokensOf } from '@switchyard/runner-kit';
import type { RetroTarget, RetroTask } from './retro-types.js';

/** A task's figures while the events are read: its first and last instants give its duration. */
export type TaskTally = RetroTask & { first?: number; last?: number };
/** A target's figures while the events are read: summed durations, the tasks it worked on. */
export type TargetTally = RetroTarget & { durations: number; tasks: Set<string> };

const inc = (map: Record<string, number>, key: string) => {
  map[key] = (map[key] ?? 0) + 1;
};

const newTask = (id: string): TaskTally => ({
  task: id,
  outcome: 'open',
  attempts: 0,
  failovers: 0,
  failureClasses: {},
  planLoops: 1,
  findings: { critical: 0, moderate: 0, minor: 0 },
  reviewsRequestingChanges: 0,
  gateFailures: 0,
  durationMs: 0,
  tokens: 0,
  costUsd: 0,
});

const newTarget = (id: string): TargetTally => ({
  target: id,
  attempts: 0,
  succeeded: 0,
  successRate: 0,
  failureClasses: {},
  meanDurationMs: 0,
  costUsd: 0,
  archivedTasks: 0,
  durations: 0,
  tasks: new Set(),
});

/** The per-task and per-target figures of a run's events, counted in event order. */
export class RetroTally {
  readonly tasks = new Map<string, TaskTally>();
  readonly targets = new Map<string, TargetTally>();
  /** The worker attempt of each task that last "succeeded": a write-set correction of its
   * result (an empty diff, files outside the write set) makes it a failure after all. */
  private readonly lastWorkerSuccess = new Map<string, string>();

  constructor(private readonly prices: PriceTable) {}

  /** Counts one event (a human's stop of the whole run names no task: not counted). */
  add(e: RunEvent): void {
    if (!('task' in e) || e.task === undefined) return;
    const t = this.task(e.task);
    const at = Date.parse(e.at);
    if (e.type === 'attempt.started' || e.type === 'gate.finished') t.first ??= at;
    t.last = at;
    if ('planLoop' in e) t.planLoops = Math.max(t.planLoops, e.planLoop);
    switch (e.type) {
      case 'attempt.started':
        if (!e.reattached) t.attempts += 1;
        if (e.machine && !e.reattached) {
          t.machines ??= {};
          inc(t.machines, e.machine);
        }
        return;
      case 'attempt.finished':
        this.attemptFinished(t, e);
        return;
      case 'task.isolation':
        if (e.step === 'writeset-violation') this.writeSetViolation(t, e.detail);
        return;
      case 'target.failover':
        t.failovers += 1;
        return;
      case 'gate.finished':
        if (!e.passed) t.gateFailures += 1;
        return;
      case 'review.verdict':
        t.findings.critical += e.findings.critical;
        t.findings.moderate += e.findings.moderate;
        t.findings.minor += e.findings.minor;
        if (e.verdict === 'CHANGES_REQUESTED') t.reviewsRequestingChanges += 1;
        return;
      case 'task.archived':
        t.outcome = 'archived';
        return;
      case 'task.blocked':
        t.outcome = 'blocked';
        return;
    }
  }

  private task(id: string): TaskTally {
    const t = this.tasks.get(id) ?? newTask(id);
    this.tasks.set(id, t);
    return t;
  }

  private target(id: string): TargetTally {
    const g = this.targets.get(id) ?? newTarget(id);
    this.targets.set(id, g);
    return g;
  }

  private attemptFinished(t: TaskTally, e: Extract<RunEvent, { type: 'attempt.finished' }>): void {
    const g = this.target(e.target);
    g.attempts += 1;
    g.durations += e.durationMs;
    g.tasks.add(e.task);
    if (e.role === 'worker') this.lastWorkerSuccess.delete(e.task);
    if (e.result === 'success') {
      g.succeeded += 1;
      if (e.role === 'worker') this.lastWorkerSuccess.set(e.task, e.target);
    } else {
      inc(g.failureClasses, e.result);
      inc(t.failureClasses, e.result);
    }
    if (e.usage) {
      const priced = priceUsage(e.usage, this.prices[e.target]);
      t.tokens += tokensOf(e.usage);
      t.costUsd = roundUsd(t.costUsd + (priced.costUsd ?? 0));
      g.costUsd = roundUsd(g.costUsd + (priced.costUsd ?? 0));
    }
  }

  /** The write-set check found the worker's "successful" attempt wrong: a failure after all. */
  private writeSetViolation(t: TaskTally, detail: string): void {
    const worked = this.lastWorkerSuccess.get(t.task);
    if (worked === undefined) return;
    this.lastWorkerSuccess.delete(t.task);
    const g = this.target(worked);
    g.succeeded -= 1;
    const cls = detail.startsWith('no change was made') ? 'empty-diff' : 'writeset-violated';
    inc(g.failureClasses, cls);
    inc(t.failureClasses, cls);
  }
}
