import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  agentTaskDir,
  planLoopOf,
  type RunEvent,
  type Store,
  SwitchyardError,
} from '@switchyard/core';
import type { RunControl } from '@switchyard/engine';
import { openFsStore } from '@switchyard/store-fs';
import { handleAction } from './actions.js';
import { loadPageAssets, type PageAssets } from './assets.js';
import { type EventFeed, EventRelay, startPosition } from './event-relay.js';
import { followPlans } from './follow.js';
import { assertLoopbackBind, LOOPBACK, maskSecrets, refusalOf } from './guard.js';
import { DEFAULT_LIMITS, type MonitorLimits, serverOptions, writeEvent } from './limits.js';
import { renderPage } from './page-html.js';
import { diffElsewhere, planElsewhere } from './shared-files.js';
import { machineOf } from './shared-tasks.js';
import { type MonitorSnapshot, type SharedFacts, SnapshotReader } from './snapshot.js';
import { SnapshotDiffer } from './snapshot-diff.js';
import { tailFile } from './tail.js';
import { taskDiff } from './task-diff.js';

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

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

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
  const assets = loadPageAssets();
  const store = options.store ?? openWorkspaceStore(options.workspace);
  const reader = new SnapshotReader(options.workspace, store);
  await reader.init();
  // A shared store: its events followed once for every page (`/log`) and for the snapshots.
  const relay = options.eventFeed ? new EventRelay() : undefined;
  const storeEvents: RunEvent[] = [];
  let refreshShared: (() => void) | undefined;
  await relay?.start(options.eventFeed!, (numbered) => {
    storeEvents.push(numbered.event);
    refreshShared?.();
  });
  if (relay && options.sharedFacts) reader.useStore(await options.sharedFacts(), storeEvents);
  // Fails here, before listening, on a folder without agent-task/ (SY_USAGE).
  const first = await reader.read();
  const token = randomBytes(24).toString('base64url');
  const streams = new Set<ServerResponse>();
  const stops = new Set<() => void>();
  // What every open page holds: snapshot `differ.current`; pages get patches from there on.
  const differ = new SnapshotDiffer();
  let generation = reader.logGeneration;
  differ.next(first);
  let current: { snapshot: MonitorSnapshot; seq: number; json?: string } = {
    snapshot: first,
    seq: differ.current,
  };
  /** Something on disk may have changed since `current` was read. */
  let dirty = false;
  let closed = false;
  const limits: MonitorLimits = { ...DEFAULT_LIMITS, ...options.limits };
  /** Live streams (`/events` and `/tail`): counted against `limits.maxStreams`. */
  let openStreams = 0;
  const broadcast = (event: string, json: string) => {
    for (const res of streams)
      if (!writeEvent(res, event, json, limits.maxBufferedBytes)) streams.delete(res);
  };
  /** Reads the store again and sends open pages what changed (a patch, or nothing). */
  const rebuildOnce = async () => {
    dirty = false;
    let next: MonitorSnapshot;
    try {
      next = await reader.read();
    } catch (error) {
      // The pages keep what they have and are told; tried again in a second.
      broadcast('failure', JSON.stringify({ error: String(error) }));
      dirty = true;
      if (!closed && !pending && streams.size > 0) pending = setTimeout(push, 1000);
      return;
    }
    // A replaced event log rebuilt every history: the pages get the snapshot whole.
    const reset = reader.logGeneration !== generation;
    generation = reader.logGeneration;
    const patch = differ.next(next, reset);
    current = { snapshot: next, seq: differ.current };
    if (reset) broadcast('snapshot', fullJson());
    else if (patch) broadcast('patch', JSON.stringify(patch));
  };
  /** One rebuild at a time; a change seen during one asks for the next. */
  let building: Promise<void> | undefined;
  const rebuild = (): Promise<void> => {
    building ??= rebuildOnce().finally(() => {
      building = undefined;
      if (dirty && !closed && !pending && streams.size > 0)
        pending = setTimeout(push, Math.max(0, lastPush + interval - performance.now()));
    });
    return building;
  };
  const fullJson = () => {
    current.json ??= JSON.stringify({ ...current.snapshot, seq: current.seq });
    return current.json;
  };
  /** The snapshot as it is now in the store (read again only when something changed). */
  const snapshot = async () => {
    if (await reader.refresh().catch(() => true)) dirty = true;
    if (dirty) await rebuild();
    return current;
  };

  // Pushes: at most one rebuild per interval, none while nobody watches.
  const interval = options.pushIntervalMs ?? 100;
  let pending: NodeJS.Timeout | undefined;
  let lastPush = Number.NEGATIVE_INFINITY;
  const push = () => {
    pending = undefined;
    lastPush = performance.now();
    void rebuild();
  };
  const onChange = (what: 'state' | 'plans' = 'state') => {
    if (what === 'plans') reader.invalidatePlans();
    dirty = true;
    if (pending || streams.size === 0) return;
    pending = setTimeout(push, Math.max(0, lastPush + interval - performance.now()));
  };
  // The store's facts read again after each event and every poll while a page is open (one
  // read at a time; a change during a read asks for one more).
  let refreshing = false;
  let again = false;
  const sharedFacts = relay ? options.sharedFacts : undefined;
  refreshShared = sharedFacts
    ? () => {
        if (refreshing) {
          again = true;
          return;
        }
        refreshing = true;
        void sharedFacts()
          .then(
            (facts) => {
              reader.useStore(facts, storeEvents);
              onChange();
            },
            // the pages keep what they have; the next event or poll reads again
            () => undefined,
          )
          .finally(() => {
            refreshing = false;
            if (again && !closed) {
              again = false;
              refreshShared?.();
            }
          });
      }
    : undefined;
  const sharedPoll = refreshShared
    ? setInterval(() => {
        if (streams.size > 0) refreshShared?.();
      }, options.pollMs ?? 1000)
    : undefined;
  sharedPoll?.unref();
  /** Open `/log` streams, ended when the monitor closes. */
  const logStreams = new Set<ServerResponse>();
  const stopPlans = followPlans(options.workspace, () => onChange('plans'), {
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
  });
  // The store polled while a page is open (one read at a time): what changed is read, and
  // the pages get a patch.
  let polling = false;
  const storePoll = setInterval(() => {
    if (polling || streams.size === 0) return;
    polling = true;
    void reader
      .refresh()
      .then(
        (changed) => changed && onChange(),
        () => onChange(), // the rebuild reports the failure to the pages
      )
      .finally(() => {
        polling = false;
      });
  }, options.pollMs ?? STORE_POLL_MS);
  storePoll.unref();
  const stopFollow = () => {
    stopPlans();
    clearInterval(storePoll);
  };
  let port = 0;

  const server = createServer(serverOptions(limits), (req, res) => {
    const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
    const refusal = refusalOf(req, url, token, port, options.readOnly);
    if (refusal) {
      res.writeHead(refusal.status, {
        'content-type': 'text/plain; charset=utf-8',
        ...SECURITY_HEADERS,
      });
      res.end(`${refusal.message}\n`);
      return;
    }
    route(req, res, url).catch((error: unknown) => {
      if (res.headersSent) res.end();
      else send(res, 500, 'text/plain; charset=utf-8', `monitor error: ${String(error)}\n`);
    });
  });

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    if (req.method === 'POST') {
      void handleAction(req, options.workspace, options.control).then(
        (reply) => {
          send(res, reply.status, 'application/json', JSON.stringify(reply.body));
          // what the action changed reaches the open pages without waiting for the poll
          onChange();
        },
        (error) => send(res, 500, 'text/plain; charset=utf-8', `action failed: ${String(error)}\n`),
      );
      return;
    }
    switch (url.pathname) {
      case '/':
        await snapshot();
        return sendPage(res, assets, fullJson());
      case '/snapshot.json':
        await snapshot();
        return send(res, 200, 'application/json', fullJson());
      case '/events':
        await snapshot();
        return openStream(req, res, (write) => {
          write('snapshot', fullJson());
          streams.add(res);
          return () => streams.delete(res);
        });
      case '/log': {
        if (!relay)
          return send(res, 404, 'text/plain', 'no shared store: this monitor has no /log\n');
        const after = startPosition(
          req.headers['last-event-id'] as string | undefined,
          url.searchParams.get('after'),
        );
        if (after === undefined)
          return send(res, 400, 'text/plain', 'Last-Event-ID (or after=) must be a number\n');
        return openStream(req, res, () => {
          logStreams.add(res);
          const stop = relay.subscribe(after, res);
          return () => {
            stop();
            logStreams.delete(res);
          };
        });
      }
      case '/tail': {
        await snapshot(); // the attempt folders are those of the event log read so far
        const dir = reader.attemptDirs.get(url.searchParams.get('attempt') ?? '');
        if (!dir) return send(res, 404, 'text/plain', 'unknown attempt\n');
        return openStream(req, res, (write) =>
          tailFile(join(dir, 'normalized-output.log'), (text) =>
            write('text', JSON.stringify(text)),
          ),
        );
      }
      case '/raw/events':
        // every event read so far (a shared store's as followed), one JSON line each
        await snapshot();
        return send(
          res,
          200,
          'text/plain; charset=utf-8',
          reader.events.map((e) => `${JSON.stringify(e)}\n`).join(''),
        );
      case '/raw/state': {
        const task = knownTask((await snapshot()).snapshot, url);
        if (!task) return send(res, 404, 'text/plain', 'unknown task\n');
        // The state as stored (on a shared store: whichever machine wrote it).
        const stored = reader.rawStateOf(task);
        if (reader.onStore && !stored)
          return send(
            res,
            409,
            'text/plain; charset=utf-8',
            `${task} has no state in the shared store yet (it has not started on any machine)\n`,
          );
        const body = stored ? JSON.stringify(maskSecrets(stored), null, 2) : '';
        return send(res, 200, 'application/json', body);
      }
      case '/diff': {
        const snap = (await snapshot()).snapshot;
        const task = knownTask(snap, url);
        if (!task) return send(res, 404, 'text/plain', 'unknown task\n');
        const writeSet = snap.tasks.find((t) => t.id === task)?.writeSet ?? [];
        const state = reader.stateOf(task);
        void (
          reader.onStore
            ? diffElsewhere(options.workspace, task, state, machineOf(reader.holderOf(task)))
            : Promise.resolve(undefined)
        )
          .then((elsewhere) => {
            if (elsewhere) {
              send(res, 409, 'text/plain; charset=utf-8', `${elsewhere}\n`);
              return;
            }
            return taskDiff(options.workspace, state, writeSet).then((diff) =>
              send(res, 200, 'application/json', JSON.stringify(diff)),
            );
          })
          .catch((error: unknown) =>
            send(res, 500, 'text/plain; charset=utf-8', `cannot read the diff: ${String(error)}\n`),
          );
        return;
      }
      case '/raw/plan': {
        const task = knownTask((await snapshot()).snapshot, url);
        if (!task) return send(res, 404, 'text/plain', 'unknown task\n');
        const plan = latestPlan(options.workspace, task);
        if (!plan && reader.onStore)
          return send(
            res,
            409,
            'text/plain; charset=utf-8',
            `${planElsewhere(task, machineOf(reader.holderOf(task)))}\n`,
          );
        return send(res, 200, 'text/plain; charset=utf-8', plan);
      }
      default:
        return send(res, 404, 'text/plain', 'not found\n');
    }
  };

  const openStream = (
    req: IncomingMessage,
    res: ServerResponse,
    start: (write: (event: string, data: string) => void) => () => void,
  ) => {
    if (res.destroyed) return; // the page left while its snapshot was read
    if (openStreams >= limits.maxStreams) {
      res.writeHead(503, {
        'content-type': 'text/plain; charset=utf-8',
        'retry-after': '5',
        ...SECURITY_HEADERS,
      });
      res.end(`too many open pages (${limits.maxStreams}); close one and reload\n`);
      return;
    }
    openStreams += 1;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
      ...SECURITY_HEADERS,
    });
    res.write('retry: 1000\n\n');
    const stop = start((event, data) => {
      writeEvent(res, event, data, limits.maxBufferedBytes);
    });
    stops.add(stop);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      openStreams -= 1;
      stop();
      stops.delete(stop);
    };
    req.on('close', end);
    res.on('close', end);
  };

  // the next connection past the cap is closed at once
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      stopFollow();
      clearInterval(sharedPoll);
      void relay?.stop();
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES'
          ? new SwitchyardError(
              'SY_USAGE',
              `The monitor cannot listen on ${host}:${options.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : 'permission denied'}.`,
              { hint: 'Choose another --port, or leave it out to take a random free port.' },
            )
          : error,
      );
    };
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  // a keep-alive stream must not hold the process after close()
  return {
    url: `http://${LOOPBACK}:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      closed = true;
      stopFollow();
      clearInterval(sharedPoll);
      if (pending) clearTimeout(pending);
      // Open pages get the final state (e.g. the run's last archive) before the streams end:
      // read again whatever was announced or not (a change may not have been announced yet).
      if (streams.size > 0) {
        dirty = true;
        await rebuild();
      }
      // Pages stop reconnecting: the monitor is gone on purpose (the run it served ended).
      broadcast('end', JSON.stringify({ reason: 'the monitor stopped' }));
      const open = [...streams, ...logStreams];
      streams.clear();
      for (const stop of stops) stop();
      await relay?.stop();
      // End each stream and wait until its last bytes are handed to its socket before
      // connections are cut (a write is corked until the next tick, and a slow reader's
      // socket may be full); a reader that takes no bytes for 10 s is let go.
      await Promise.all(open.map((res) => endStream(res, CLOSE_GRACE_MS)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** How often the store is read for changes while a page is open (ms). */
const STORE_POLL_MS = 250;

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

/** Longest wait for an open page to take its last bytes when the monitor closes. */
const CLOSE_GRACE_MS = 10_000;

function endStream(res: ServerResponse, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    res.once('close', done);
    res.end(done);
  });
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS });
  res.end(body);
}

function sendPage(res: ServerResponse, assets: PageAssets, snapshotJson: string): void {
  const nonce = randomBytes(16).toString('base64');
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    // Nothing but this page's own inline script/style and its own origin's streams.
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    ...SECURITY_HEADERS,
  });
  res.end(renderPage(assets, nonce, snapshotJson));
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The `task` query parameter, only when it names a task of the snapshot (no path games). */
function knownTask(snapshot: MonitorSnapshot, url: URL): string | undefined {
  const id = url.searchParams.get('task') ?? '';
  return snapshot.tasks.some((t) => t.id === id) ? id : undefined;
}

/** The newest PLAN of a task, active or archived. */
function latestPlan(workspace: string, task: string): string {
  for (const dir of [
    join(agentTaskDir(workspace), task),
    join(agentTaskDir(workspace), 'archive', task),
  ]) {
    if (!existsSync(dir)) continue;
    const loops = readdirSync(dir)
      .map((name) => ({ name, loop: planLoopOf(name) }))
      .filter((e): e is { name: string; loop: number } => e.loop !== undefined)
      .sort((a, b) => b.loop - a.loop);
    if (loops[0]) return `# ${join(dir, loops[0].name)}\n\n${readText(join(dir, loops[0].name))}`;
  }
  return '';
}
