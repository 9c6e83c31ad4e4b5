import type { RunEvent } from '@switchyard/core';

/** An event of a store's log with its position (the SSE `id`). */
export interface NumberedEvent {
  seq: number;
  event: RunEvent;
}

/**
 * A store's event log followed live: replays every event after a position, then delivers
 * each new one, in order (a shared store follows its events table with LISTEN/NOTIFY).
 */
export interface EventFeed {
  follow(
    after: number,
    onEvent: (event: NumberedEvent) => void,
  ): Promise<{ stop(): Promise<void> }>;
}

/** What a relay writes to: an HTTP response (its 'drain' tells a full socket emptied). */
export interface RelaySink {
  readonly destroyed: boolean;
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/**
 * One follow of the event log for every open `/log` stream of a monitor (one database
 * connection however many pages), the events kept in order. A stream starts after the
 * position it names (`Last-Event-ID`), gets every later event exactly once as `id: <seq>`, and
 * is paced by its socket: a slow reader waits for 'drain' instead of buffering the log.
 */
export class EventRelay {
  private readonly log: NumberedEvent[] = [];
  private readonly pumps = new Set<() => void>();
  private follower: { stop(): Promise<void> } | undefined;

  /** Starts following `feed` from its first event; `onEvent` sees each new one first. */
  async start(feed: EventFeed, onEvent?: (event: NumberedEvent) => void): Promise<void> {
    this.follower = await feed.follow(0, (numbered) => {
      // A feed re-reading after a reconnect never moves a stream backwards.
      if (numbered.seq <= (this.log.at(-1)?.seq ?? 0)) return;
      this.log.push(numbered);
      onEvent?.(numbered);
      for (const pump of this.pumps) pump();
    });
  }

  /** Events received so far, oldest first. */
  get events(): readonly NumberedEvent[] {
    return this.log;
  }

  /** Streams to `sink` every event after `after`, then each new one; returns the stop. */
  subscribe(after: number, sink: RelaySink): () => void {
    let next = this.log.findIndex((e) => e.seq > after);
    if (next < 0) next = this.log.length;
    let waiting = false;
    const pump = () => {
      if (waiting) return;
      while (next < this.log.length && !sink.destroyed) {
        const { seq, event } = this.log[next]!;
        next += 1;
        if (!sink.write(`id: ${seq}\nevent: run-event\ndata: ${JSON.stringify(event)}\n\n`)) {
          waiting = true;
          sink.once('drain', () => {
            waiting = false;
            pump();
          });
          return;
        }
      }
    };
    this.pumps.add(pump);
    pump();
    return () => this.pumps.delete(pump);
  }

  async stop(): Promise<void> {
    this.pumps.clear();
    await this.follower?.stop();
  }
}

/**
 * The position a `/log` request starts after: its `Last-Event-ID` header (an EventSource
 * reconnecting sends it), else `?after=N`, else 0. Undefined for a value that is no position.
 */
export function startPosition(
  header: string | undefined,
  query: string | null,
): number | undefined {
  const raw = header ?? query ?? '0';
  return /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}
