import type { RunEvent } from '@switchyard/core';
import { type EventFeed, EventRelay } from './event-relay.js';
import type { SharedFacts, SnapshotReader } from './snapshot.js';

/**
 * A shared store followed for the pages: its event log once for every page (`/log`, and the
 * snapshots), and its facts (task states, claims, open escalations, backlog) read again after
 * each event and every poll while a page is open, one read at a time (a change during a read
 * asks for one more).
 */
export class SharedFeed {
  readonly relay = new EventRelay();
  /** The store's events as followed (an array that only grows; the reader holds it). */
  private readonly events: RunEvent[] = [];
  private readFacts: (() => Promise<SharedFacts>) | undefined;
  private onChange: (() => void) | undefined;
  private refreshing = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly reader: SnapshotReader) {}

  /**
   * Starts following `feed` and, with `sharedFacts`, makes the reader show the store's facts
   * from now on (first read here, before the first snapshot).
   */
  static async start(
    reader: SnapshotReader,
    feed: EventFeed,
    sharedFacts: (() => Promise<SharedFacts>) | undefined,
  ): Promise<SharedFeed> {
    const shared = new SharedFeed(reader);
    await shared.relay.start(feed, (numbered) => {
      shared.events.push(numbered.event);
      shared.refresh();
    });
    if (sharedFacts) reader.useStore(await sharedFacts(), shared.events);
    shared.readFacts = sharedFacts;
    return shared;
  }

  /** From now on the facts are read again (after each event; every `pollMs` while watched). */
  follow(onChange: () => void, watched: () => boolean, pollMs = 1000): void {
    if (!this.readFacts) return;
    this.onChange = onChange;
    this.timer = setInterval(() => {
      if (watched()) this.refresh();
    }, pollMs);
    this.timer.unref();
  }

  /** Stops reading the facts (the monitor closes; `/log` streams still get what came). */
  stopFacts(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Stops reading the facts and the event log. */
  async stop(): Promise<void> {
    this.stopFacts();
    await this.relay.stop();
  }

  private refresh(): void {
    const read = this.readFacts;
    const onChange = this.onChange;
    if (!read || !onChange) return;
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    void read()
      .then(
        (facts) => {
          this.reader.useStore(facts, this.events);
          onChange();
        },
        // the pages keep what they have; the next event or poll reads again
        () => undefined,
      )
      .finally(() => {
        this.refreshing = false;
        if (this.again && !this.stopped) {
          this.again = false;
          this.refresh();
        }
      });
  }
}
