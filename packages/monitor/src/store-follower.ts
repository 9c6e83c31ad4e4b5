import type { ClaimRecord, RunEvent, Store, TaskState, TaskStateCursor } from '@switchyard/core';

/**
 * Follows a store's run state incrementally through its ports: the event log read on from the
 * last position, the task states changed since the last cursor, and the claims. A poll costs
 * what changed (on the file store: a stat of the log, a stat per task group folder, a stat of
 * the claims file), so it can run every few hundred milliseconds while a page is open.
 */
export class StoreFollower {
  /** Every event so far, oldest first (the same array, grown in place). */
  readonly events: RunEvent[] = [];
  /** Every task's state as last read, by task id. */
  readonly states = new Map<string, TaskState>();
  /** Every task's stored version as last read (the file store's `revision`), by task id. */
  readonly versions = new Map<string, number>();
  /** Every held claim as last read. */
  claims: ClaimRecord[] = [];
  private position = 0;
  /** The store's mark of `position`: lets it tell a log replaced under the follower. */
  private mark: string | undefined;
  private resets = 0;
  private cursor: TaskStateCursor | undefined;
  private claimsMark = '';
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: Store) {}

  /**
   * Times the event log was read again from the start (the store said it no longer holds the
   * position read to: a log replaced by hand): the events before are void.
   */
  get generation(): number {
    return this.resets;
  }

  /** Reads what changed since the last pull; true when anything did. One pull at a time. */
  pull(): Promise<boolean> {
    const run = () => this.pullOnce();
    const result = this.turn.then(run, run);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** The task states, sorted by task id (as `TaskStatePort.list` gives them). */
  sortedStates(): TaskState[] {
    return [...this.states.values()].sort((a, b) =>
      a.task < b.task ? -1 : a.task > b.task ? 1 : 0,
    );
  }

  private async pullOnce(): Promise<boolean> {
    const [page, changes, claims] = await Promise.all([
      this.store.events.read({ after: this.position, mark: this.mark }),
      this.store.tasks.changes(this.cursor),
      this.store.claims.list(),
    ]);
    if (page.reset) {
      this.events.length = 0;
      this.resets += 1;
    }
    this.position = page.next;
    this.mark = page.mark;
    for (const stored of page.events) this.events.push(stored.event);
    this.cursor = changes.cursor;
    for (const entry of changes.changed) {
      this.states.set(entry.value.task, entry.value);
      this.versions.set(entry.value.task, entry.version);
    }
    for (const task of changes.removed) {
      this.states.delete(task);
      this.versions.delete(task);
    }
    // A claim changes by its task, its paths or its start: enough to tell a change.
    const mark = claims.map((c) => `${c.taskId}:${c.paths.length}:${c.since}`).join('|');
    const claimsChanged = mark !== this.claimsMark;
    this.claimsMark = mark;
    this.claims = claims;
    return (
      page.reset === true ||
      page.events.length > 0 ||
      changes.changed.length > 0 ||
      changes.removed.length > 0 ||
      claimsChanged
    );
  }
}
