import type { ServerOptions } from 'node:http';

/**
 * What one monitor holds at most, whoever connects: a page (or a script) that opens streams
 * and never reads them, or sockets that connect and never send a request, must not grow its
 * memory or its file descriptors without bound. Measured today: 200 stalled streams took the
 * process from 117 to 351 MB, and 300 half-open sockets were held without a token.
 */
export interface MonitorLimits {
  /** Open TCP connections; the next one is closed at once (Node's `server.maxConnections`). */
  maxConnections: number;
  /** Open live streams (`/events`, `/tail`); the next one gets 503 (try again later). */
  maxStreams: number;
  /** Bytes a stream may have waiting for its reader; past it the stream is closed (the page
   * reconnects and starts again from a fresh snapshot). */
  maxBufferedBytes: number;
  /** A connection must have sent its request headers within this (ms). */
  headersTimeoutMs: number;
}

export const DEFAULT_LIMITS: MonitorLimits = {
  maxConnections: 64,
  maxStreams: 32,
  maxBufferedBytes: 1024 * 1024,
  headersTimeoutMs: 10_000,
};

/** The HTTP server options that bound how long a connection may take to send its request. */
export function serverOptions(limits: MonitorLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    // the whole request (headers, no body) in the same time; live streams are responses
    requestTimeout: limits.headersTimeoutMs,
    // how often Node looks for connections past those timeouts (idle sockets included)
    connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 4)),
    keepAliveTimeout: Math.min(5000, limits.headersTimeoutMs),
  };
}

/** What a live stream writes to. */
interface StreamSink {
  readonly writableLength: number;
  readonly destroyed: boolean;
  write(chunk: string): boolean;
  destroy(): void;
}

/**
 * Writes one server-sent event unless the reader has fallen behind: with more than
 * `maxBufferedBytes` still unsent from earlier events, the stream is closed instead and false
 * returned. So a stalled reader costs at most the bound plus one event.
 */
export function writeEvent(
  sink: StreamSink,
  event: string,
  data: string,
  maxBufferedBytes: number,
): boolean {
  if (sink.destroyed) return false;
  if (sink.writableLength > maxBufferedBytes) {
    sink.destroy();
    return false;
  }
  sink.write(`event: ${event}\ndata: ${data}\n\n`);
  return true;
}
