import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { agentTaskDir, planLoopOf } from '@switchyard/core';
import type { RunControl } from '@switchyard/engine';
import { handleAction } from './actions.js';
import type { PageAssets } from './assets.js';
import { type EventRelay, startPosition } from './event-relay.js';
import { LOOPBACK, maskSecrets, refusalOf } from './guard.js';
import { SECURITY_HEADERS, send, sendPage } from './http-reply.js';
import type { LiveStreams } from './live-streams.js';
import { diffElsewhere, planElsewhere } from './shared-files.js';
import { machineOf } from './shared-tasks.js';
import type { MonitorSnapshot, SnapshotReader } from './snapshot.js';
import type { SnapshotHub } from './snapshot-hub.js';
import { tailFile } from './tail.js';
import { taskDiff } from './task-diff.js';

/** What the routes answer from. */
export interface RouteContext {
  workspace: string;
  /** The run of this process (`run --monitor`): actions go through its dispatcher. */
  control: RunControl | undefined;
  /** Refuse every action (POST answers 405). */
  readOnly: boolean | undefined;
  /** The URL token every request must carry. */
  token: string;
  /** The port listened on (the Host header must name it). */
  port: () => number;
  assets: PageAssets;
  reader: SnapshotReader;
  hub: SnapshotHub;
  streams: LiveStreams;
  /** A shared store's event log, followed for `/log` (none: `/log` is 404). */
  relay: EventRelay | undefined;
  /** Open `/log` streams, ended when the monitor closes. */
  logStreams: Set<ServerResponse>;
  /** What an action changed reaches the open pages without waiting for the poll. */
  onChange: () => void;
}

type Route = (ctx: RouteContext, req: IncomingMessage, res: ServerResponse, url: URL) => unknown;

/**
 * Answers one request: refused without the token or with a foreign Host header, an action on
 * POST, else the GET route of its path (an error answers 500).
 */
export function handleRequest(ctx: RouteContext, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', `http://${LOOPBACK}`);
  const refusal = refusalOf(req, url, ctx.token, ctx.port(), ctx.readOnly);
  if (refusal) {
    res.writeHead(refusal.status, {
      'content-type': 'text/plain; charset=utf-8',
      ...SECURITY_HEADERS,
    });
    res.end(`${refusal.message}\n`);
    return;
  }
  const route = req.method === 'POST' ? postAction : (GET_ROUTES.get(url.pathname) ?? notFound);
  const answer = async () => route(ctx, req, res, url);
  answer().catch((error: unknown) => {
    if (res.headersSent) res.end();
    else send(res, 500, 'text/plain; charset=utf-8', `monitor error: ${String(error)}\n`);
  });
}

const postAction: Route = (ctx, req, res) => {
  void handleAction(req, ctx.workspace, ctx.control).then(
    (reply) => {
      send(res, reply.status, 'application/json', JSON.stringify(reply.body));
      ctx.onChange();
    },
    (error) => send(res, 500, 'text/plain; charset=utf-8', `action failed: ${String(error)}\n`),
  );
};

const notFound: Route = (_ctx, _req, res) => send(res, 404, 'text/plain', 'not found\n');

const page: Route = async (ctx, _req, res) => {
  await ctx.hub.snapshot();
  sendPage(res, ctx.assets, ctx.hub.fullJson());
};

const snapshotJson: Route = async (ctx, _req, res) => {
  await ctx.hub.snapshot();
  send(res, 200, 'application/json', ctx.hub.fullJson());
};

const events: Route = async (ctx, req, res) => {
  await ctx.hub.snapshot();
  ctx.streams.start(req, res, (write) => ctx.hub.subscribe(res, write));
};

/** A shared store's run events as server-sent events, from `Last-Event-ID` (or `after=`). */
const log: Route = (ctx, req, res, url) => {
  const relay = ctx.relay;
  if (!relay) return send(res, 404, 'text/plain', 'no shared store: this monitor has no /log\n');
  const after = startPosition(
    req.headers['last-event-id'] as string | undefined,
    url.searchParams.get('after'),
  );
  if (after === undefined)
    return send(res, 400, 'text/plain', 'Last-Event-ID (or after=) must be a number\n');
  ctx.streams.start(req, res, () => {
    ctx.logStreams.add(res);
    const stop = relay.subscribe(after, res);
    return () => {
      stop();
      ctx.logStreams.delete(res);
    };
  });
};

/** The live normalized output of an attempt of the event log read so far. */
const tail: Route = async (ctx, req, res, url) => {
  await ctx.hub.snapshot(); // the attempt folders are those of the event log read so far
  const dir = ctx.reader.attemptDirs.get(url.searchParams.get('attempt') ?? '');
  if (!dir) return send(res, 404, 'text/plain', 'unknown attempt\n');
  ctx.streams.start(req, res, (write) =>
    tailFile(join(dir, 'normalized-output.log'), (text) => write('text', JSON.stringify(text))),
  );
};

/** Every event read so far (a shared store's as followed), one JSON line each. */
const rawEvents: Route = async (ctx, _req, res) => {
  await ctx.hub.snapshot();
  const body = ctx.reader.events.map((e) => `${JSON.stringify(e)}\n`).join('');
  send(res, 200, 'text/plain; charset=utf-8', body);
};

/** The task's state as stored (on a shared store: whichever machine wrote it), masked. */
const rawState: Route = async (ctx, _req, res, url) => {
  const task = knownTask((await ctx.hub.snapshot()).snapshot, url);
  if (!task) return send(res, 404, 'text/plain', 'unknown task\n');
  const stored = ctx.reader.rawStateOf(task);
  if (ctx.reader.onStore && !stored)
    return send(
      res,
      409,
      'text/plain; charset=utf-8',
      `${task} has no state in the shared store yet (it has not started on any machine)\n`,
    );
  const body = stored ? JSON.stringify(maskSecrets(stored), null, 2) : '';
  send(res, 200, 'application/json', body);
};

/** The task's changes in this clone; 409 when they are on another machine. */
const diff: Route = async (ctx, _req, res, url) => {
  const snap = (await ctx.hub.snapshot()).snapshot;
  const task = knownTask(snap, url);
  if (!task) return send(res, 404, 'text/plain', 'unknown task\n');
  const writeSet = snap.tasks.find((t) => t.id === task)?.writeSet ?? [];
  const state = ctx.reader.stateOf(task);
  const elsewhere = ctx.reader.onStore
    ? diffElsewhere(ctx.workspace, task, state, machineOf(ctx.reader.holderOf(task)))
    : Promise.resolve(undefined);
  void elsewhere
    .then((where) => {
      if (where) return send(res, 409, 'text/plain; charset=utf-8', `${where}\n`);
      return taskDiff(ctx.workspace, state, writeSet).then((found) =>
        send(res, 200, 'application/json', JSON.stringify(found)),
      );
    })
    .catch((error: unknown) =>
      send(res, 500, 'text/plain; charset=utf-8', `cannot read the diff: ${String(error)}\n`),
    );
};

/** The task's newest PLAN in this clone; 409 when it is on another machine. */
const rawPlan: Route = async (ctx, _req, res, url) => {
  const task = knownTask((await ctx.hub.snapshot()).snapshot, url);
  if (!task) return send(res, 404, 'text/plain', 'unknown task\n');
  const plan = latestPlan(ctx.workspace, task);
  if (!plan && ctx.reader.onStore)
    return send(
      res,
      409,
      'text/plain; charset=utf-8',
      `${planElsewhere(task, machineOf(ctx.reader.holderOf(task)))}\n`,
    );
  send(res, 200, 'text/plain; charset=utf-8', plan);
};

const GET_ROUTES: ReadonlyMap<string, Route> = new Map([
  ['/', page],
  ['/snapshot.json', snapshotJson],
  ['/events', events],
  ['/log', log],
  ['/tail', tail],
  ['/raw/events', rawEvents],
  ['/raw/state', rawState],
  ['/diff', diff],
  ['/raw/plan', rawPlan],
]);

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

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
