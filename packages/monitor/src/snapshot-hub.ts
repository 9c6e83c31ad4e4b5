import type { ServerResponse } from 'node:http';
import { writeEvent } from './limits.js';
import type { EventWriter } from './live-streams.js';
import type { MonitorSnapshot, SnapshotReader } from './snapshot.js';
import { SnapshotDiffer } from './snapshot-diff.js';

/** The snapshot the open pages hold, with its number (and its JSON, made once). */
export interface NumberedSnapshotJson {
  snapshot: MonitorSnapshot;
  seq: number;
  json?: string;
}

/** Options of {@link SnapshotHub}. */
export interface SnapshotHubOptions {
  /** Least time between two pushed snapshots (ms); changes in between are coalesced. */
  pushIntervalMs: number;
  /** Bytes a page's stream may have waiting; past it the stream is closed. */
  maxBufferedBytes: number;
}

/**
 * The snapshot fan-out to the open pages (`/events`): a page gets the snapshot whole when it
 * connects, then only patches numbered from it. A change marks the snapshot dirty; it is read
 * again at most once per push interval, one read at a time, and never while no page is open.
 */
export class SnapshotHub {
  /** What every open page holds: snapshot `differ.current`; pages get patches from there on. */
  private readonly differ = new SnapshotDiffer();
  private current: NumberedSnapshotJson;
  /** The event log's generation of `current` (a replaced log: pages get the snapshot whole). */
  private generation: number;
  /** Something in the store may have changed since `current` was read. */
  private dirty = false;
  private closed = false;
  private pending: NodeJS.Timeout | undefined;
  private lastPush = Number.NEGATIVE_INFINITY;
  /** The rebuild under way: one at a time, a change seen during one asks for the next. */
  private building: Promise<void> | undefined;
  /** Open `/events` streams. */
  private readonly pages = new Set<ServerResponse>();

  constructor(
    private readonly reader: SnapshotReader,
    first: MonitorSnapshot,
    private readonly options: SnapshotHubOptions,
  ) {
    this.generation = reader.logGeneration;
    this.differ.next(first);
    this.current = { snapshot: first, seq: this.differ.current };
  }

  /** Whether a page is open (nothing is read for nobody). */
  get watched(): boolean {
    return this.pages.size > 0;
  }

  /** The snapshot as it is now in the store (read again only when something changed). */
  async snapshot(): Promise<NumberedSnapshotJson> {
    if (await this.reader.refresh().catch(() => true)) this.dirty = true;
    if (this.dirty) await this.rebuild();
    return this.current;
  }

  /** The current snapshot whole, numbered, as JSON. */
  fullJson(): string {
    this.current.json ??= JSON.stringify({ ...this.current.snapshot, seq: this.current.seq });
    return this.current.json;
  }

  /** A page's `/events` stream: the snapshot whole now, the patches from then on. */
  subscribe(res: ServerResponse, write: EventWriter): () => void {
    write('snapshot', this.fullJson());
    this.pages.add(res);
    return () => this.pages.delete(res);
  }

  /** Something a page shows may have changed: a rebuild is pushed within the interval. */
  changed(): void {
    this.dirty = true;
    if (this.closed || this.pending || this.pages.size === 0) return;
    this.schedule();
  }

  /**
   * No more pushes: open pages get the final state (read again whether or not a change was
   * announced) and the `end` event. Returns their streams, to be ended by the caller.
   */
  async close(): Promise<ServerResponse[]> {
    this.closed = true;
    if (this.pending) clearTimeout(this.pending);
    if (this.pages.size > 0) {
      this.dirty = true;
      await this.rebuild();
    }
    // Pages stop reconnecting: the monitor is gone on purpose (the run it served ended).
    this.broadcast('end', JSON.stringify({ reason: 'the monitor stopped' }));
    const open = [...this.pages];
    this.pages.clear();
    return open;
  }

  private broadcast(event: string, json: string): void {
    for (const res of this.pages)
      if (!writeEvent(res, event, json, this.options.maxBufferedBytes)) this.pages.delete(res);
  }

  private schedule(delayMs?: number): void {
    const wait = delayMs ?? this.lastPush + this.options.pushIntervalMs - performance.now();
    this.pending = setTimeout(() => this.push(), Math.max(0, wait));
  }

  private push(): void {
    this.pending = undefined;
    this.lastPush = performance.now();
    void this.rebuild();
  }

  private rebuild(): Promise<void> {
    this.building ??= this.rebuildOnce().finally(() => {
      this.building = undefined;
      if (this.dirty && !this.closed && !this.pending && this.pages.size > 0) this.schedule();
    });
    return this.building;
  }

  /** Reads the store again and sends open pages what changed (a patch, or nothing). */
  private async rebuildOnce(): Promise<void> {
    this.dirty = false;
    let next: MonitorSnapshot;
    try {
      next = await this.reader.read();
    } catch (error) {
      // The pages keep what they have and are told; tried again in a second.
      this.broadcast('failure', JSON.stringify({ error: String(error) }));
      this.dirty = true;
      if (!this.closed && !this.pending && this.pages.size > 0) this.schedule(1000);
      return;
    }
    // A replaced event log rebuilt every history: the pages get the snapshot whole.
    const reset = this.reader.logGeneration !== this.generation;
    this.generation = this.reader.logGeneration;
    const patch = this.differ.next(next, reset);
    this.current = { snapshot: next, seq: this.differ.current };
    if (reset) this.broadcast('snapshot', this.fullJson());
    else if (patch) this.broadcast('patch', JSON.stringify(patch));
  }
}
