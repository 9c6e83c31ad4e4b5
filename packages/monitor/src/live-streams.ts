import type { IncomingMessage, ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './http-reply.js';
import { type MonitorLimits, writeEvent } from './limits.js';

/** Writes one server-sent event to a stream (dropped for a reader past the buffer bound). */
export type EventWriter = (event: string, data: string) => void;

/**
 * The monitor's live streams (`/events`, `/tail`, `/log`): each opened as server-sent events,
 * counted against `limits.maxStreams` (the next one gets 503), and its source (a tail, a
 * subscription) stopped when the stream ends or the monitor closes.
 */
export class LiveStreams {
  private open = 0;
  private readonly stops = new Set<() => void>();

  constructor(private readonly limits: MonitorLimits) {}

  /** Opens `res` as a stream and calls `begin` with its writer; `begin` returns its stop. */
  start(
    req: IncomingMessage,
    res: ServerResponse,
    begin: (write: EventWriter) => () => void,
  ): void {
    if (res.destroyed) return; // the page left while its snapshot was read
    if (this.open >= this.limits.maxStreams) {
      res.writeHead(503, {
        'content-type': 'text/plain; charset=utf-8',
        'retry-after': '5',
        ...SECURITY_HEADERS,
      });
      res.end(`too many open pages (${this.limits.maxStreams}); close one and reload\n`);
      return;
    }
    this.open += 1;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
      ...SECURITY_HEADERS,
    });
    res.write('retry: 1000\n\n');
    const stop = begin((event, data) => {
      writeEvent(res, event, data, this.limits.maxBufferedBytes);
    });
    this.stops.add(stop);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.open -= 1;
      stop();
      this.stops.delete(stop);
    };
    req.on('close', end);
    res.on('close', end);
  }

  /** Stops every stream's source (the monitor closes; the streams end after). */
  stopAll(): void {
    for (const stop of this.stops) stop();
  }
}
