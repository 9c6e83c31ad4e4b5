import type { ApplyJournal, ApplyStep, Store, TaskId, WorktreeRecord } from '@switchyard/core';

/**
 * The store ports isolation keeps its facts in: worktree records and apply journals (the
 * isolation port), and task states (whether a task is blocked now). The run's store, passed in.
 */
export type IsolationStore = Pick<Store, 'isolation' | 'tasks'>;

/** What the record functions need of an isolation context. */
interface WithStore {
  store: IsolationStore;
}

/**
 * Journal steps written durably (surviving a power loss): those whose loss would change what
 * recovery does. `advance` comes before the source branch moves (without it recovery would
 * discard an apply that had moved the source) and `verified` is the commit point (without it
 * a passed apply would be rolled back). Losing any other step leaves the one before it, which
 * recovery treats the same way: `commit` and `rebase` (or no journal) discard, `dod`,
 * `rollback` and `rolled-back` roll back like `advance`. A process crash loses none of them:
 * the port keeps each write once it resolved, before its step is taken.
 */
const DURABLE_STEPS: ReadonlySet<ApplyStep> = new Set<ApplyStep>(['advance', 'verified']);

export const readRecord = (ctx: WithStore, taskId: TaskId) => ctx.store.isolation.getRecord(taskId);

/** Replaces the record whole; `durable: false` when losing it to a power cut changes nothing. */
export const writeRecord = (ctx: WithStore, record: WorktreeRecord, durable = true) =>
  ctx.store.isolation.putRecord(record, { durable });

export const removeRecord = (ctx: WithStore, taskId: TaskId) =>
  ctx.store.isolation.removeRecord(taskId);

export const readJournal = (ctx: WithStore, taskId: TaskId) =>
  ctx.store.isolation.getJournal(taskId);

export const removeJournal = (ctx: WithStore, taskId: TaskId) =>
  ctx.store.isolation.removeJournal(taskId);

/** Records `step` (with the fields it needs) in the journal; returns the journal as written. */
export async function recordStep(
  ctx: WithStore,
  journal: ApplyJournal,
  step: ApplyStep,
  fields: Partial<ApplyJournal> = {},
): Promise<ApplyJournal> {
  const next: ApplyJournal = {
    ...journal,
    ...fields,
    step,
    history: [...journal.history, { step, at: new Date().toISOString() }],
  };
  await ctx.store.isolation.putJournal(next, { durable: DURABLE_STEPS.has(step) });
  return next;
}
