import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Store, SwitchyardError } from '@switchyard/core';
import type { RunControl } from '@switchyard/engine';
import { openFsStore } from '@switchyard/store-fs';
import { loadPageAssets } from './assets.js';
import type { EventFeed } from './event-relay.js';
import { assertLoopbackBind, LOOPBACK } from './guard.js';
import { endStream } from './http-reply.js';
import { DEFAULT_LIMITS, type MonitorLimits, serverOptions } from './limits.js';
import { LiveStreams } from './live-streams.js';
import { handleRequest, type RouteContext } from './routes.js';
import { followRun } from './run-follower.js';
import { SharedFeed } from './shared-feed.js';
import { type SharedFacts, SnapshotReader } from './snapshot.js';
import { SnapshotHub } from './snapshot-hub.js';

/** Options of {@link startMonitor}. */
export interface MonitorOptions {
  /** Repository root holding `agent-task/`. */
  workspace: string;
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Bind address; only 127.0.0.1 is accepted (anything else throws `SY_USAGE`). */
  host?: string;
  /**
   * How often the store is read for changes while a page is open (ms; default 250), and the
   * fallback poll of the plan folders (default 1000).
   */
  pollMs?: number;
  /**
   * The store the page reads (task states, claims, events, escalations, sessions): default the
   * workspace's file store. Any store serves: it is read through its ports only.
   */
  store?: Store;
  /** Least time between two pushed snapshots (ms); changes in between are coalesced. */
  pushIntervalMs?: number;
  /** Connection, stream and buffer bounds (see limits.ts); defaults for anything not given. */
  limits?: Partial<MonitorLimits>;
  /** The run of this process (`run --monitor`): actions go through its dispatcher. */
  control?: RunControl;
  /** Refuse every action (POST /action answers 405): the page only shows. */
  readOnly?: boolean;
  /**
   * A shared store's event log (every machine's runs): served live on `/log` as server-sent
   * events numbered by their position, replayed from `Last-Event-ID`.
   */
  eventFeed?: EventFeed;
  /**
   * With `eventFeed`: the shared store's task states, claims, open escalations and backlog
   * (every machine's), read again after each event (and every `pollMs` while a page is open).
   * The page then shows the store, not this workspace's files: each task's status comes from
   * the backlog, its plans from this clone when it has them.
   */
  sharedFacts?: () => Promise<SharedFacts>;
}

/** A running monitor. */
export interface MonitorServer {
  /** The page URL with its token: print it, open it, never publish it. */
  url: string;
  port: number;
  token: string;
  /** Stops following files, ends every stream and closes the server. */
  close(): Promise<void>;
}

/**
 * Starts the monitor of a workspace: a read-only HTTP server on 127.0.0.1 with the live page
 * (`/`), its snapshot stream (`/events`, server-sent events), a live tail of one attempt's
 * normalized output (`/tail?attempt=`) and raw payloads (`/raw/{plan,state,events}`). Every
 * request needs the URL token and this server's own Host header. It reads only persisted
 * state, so it serves a run in progress, a finished one and one whose dispatcher died.
 */
export async function startMonitor(options: MonitorOptions): Promise<MonitorServer> {
  const host = options.host ?? LOOPBACK;
  assertLoopbackBind(host);
  const reader = new SnapshotReader(
    options.workspace,
    options.store ?? openWorkspaceStore(options.workspace),
  );
  await reader.init();
  // A shared store: its events followed once for every page (`/log`) and for the snapshots.
  const shared = options.eventFeed
    ? await SharedFeed.start(reader, options.eventFeed, options.sharedFacts)
    : undefined;
  // Fails here, before listening, on a folder without agent-task/ (SY_USAGE).
  const first = await reader.read();
  const limits: MonitorLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const hub = new SnapshotHub(reader, first, {
    pushIntervalMs: options.pushIntervalMs ?? 100,
    maxBufferedBytes: limits.maxBufferedBytes,
  });
  const onChange = (what: 'state' | 'plans' = 'state') => {
    if (what === 'plans') reader.invalidatePlans();
    hub.changed();
  };
  const watched = () => hub.watched;
  shared?.follow(onChange, watched, options.pollMs);
  const stopFollow = followRun({
    workspace: options.workspace,
    reader,
    watched,
    onChange,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
  });
  const logStreams = new Set<ServerResponse>();
  let port = 0;
  const context: RouteContext = {
    workspace: options.workspace,
    control: options.control,
    readOnly: options.readOnly,
    token: randomBytes(24).toString('base64url'),
    port: () => port,
    assets: loadPageAssets(),
    reader,
    hub,
    streams: new LiveStreams(limits),
    relay: shared?.relay,
    logStreams,
    onChange: () => onChange(),
  };
  const server = createServer(serverOptions(limits), (req, res) =>
    handleRequest(context, req, res),
  );
  // the next connection past the cap is closed at once
  server.maxConnections = limits.maxConnections;
  port = await listen(server, host, options.port, async () => {
    stopFollow();
    await shared?.stop();
  });
  const token = context.token;
  return {
    url: `http://${LOOPBACK}:${port}/?token=${token}`,
    port,
    token,
    close: () => closeMonitor(server, hub, context, shared, stopFollow),
  };
}

/**
 * Closes a monitor: following stops, open pages get the final state (e.g. the run's last
 * archive), and each stream is ended, its last bytes handed to its socket, before connections
 * are cut (a reader that takes no bytes for 10 s is let go).
 */
async function closeMonitor(
  server: Server,
  hub: SnapshotHub,
  context: RouteContext,
  shared: SharedFeed | undefined,
  stopFollow: () => void,
): Promise<void> {
  stopFollow();
  shared?.stopFacts();
  const open = [...(await hub.close()), ...context.logStreams];
  context.streams.stopAll();
  await shared?.stop();
  await Promise.all(open.map((res) => endStream(res, CLOSE_GRACE_MS)));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Longest wait for an open page to take its last bytes when the monitor closes. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Listens on `host:port` (0: a free one) and resolves with the port; a port in use or
 * refused throws `SY_USAGE` after `undo` stopped what was started.
 */
function listen(
  server: Server,
  host: string,
  port: number | undefined,
  undo: () => Promise<void>,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      void undo();
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES'
          ? new SwitchyardError(
              'SY_USAGE',
              `The monitor cannot listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : 'permission denied'}.`,
              {
                hint: 'Choose another --port, or leave it out to take a random free port.',
              },
            )
          : error,
      );
    };
    server.once('error', fail);
    server.listen(port ?? 0, host, () => {
      server.off('error', fail);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The workspace's file store, opened to read. A folder that does not exist has no store: the
 * first snapshot then says it has no agent-task/ folder (SY_USAGE).
 */
function openWorkspaceStore(workspace: string): Store {
  if (!existsSync(workspace))
    throw new SwitchyardError('SY_USAGE', `${workspace} has no agent-task/ folder.`, {
      hint: 'Run `switchyard status` in the repository root, or pass --workspace <dir>.',
    });
  return openFsStore({ workspace });
}
