import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState, type RunEvent } from '@switchyard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failoverEvent } from './failover-event.fixture.js';
import { maskSecrets } from './guard.js';
import { type MonitorServer, startMonitor } from './server.js';

const plan = (deps: string[] = []) => `---
route: cloud-G03
${deps.length ? `depends_on: [${deps.join(', ')}]\n` : ''}---
# task

## Modified Files Summary

- src/file.js

## Implementation Checklist

- [ ] do it
`;

let ws: string;
let monitor: MonitorServer | undefined;

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sy-monitor-'));
  for (const [id, deps] of [
    ['g/a', []],
    ['g/b', ['a']],
  ] as const) {
    mkdirSync(join(dir, 'agent-task', id), { recursive: true });
    writeFileSync(join(dir, 'agent-task', id, 'PLAN.md'), plan([...deps]));
  }
  return dir;
}

/** One raw HTTP GET with the given Host header; resolves with status and body. */
function get(port: number, path: string, host = `127.0.0.1:${port}`, method = 'GET') {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

/** Subscribes to /events and resolves with the first snapshot that satisfies `until`. */
function nextSnapshot(
  m: MonitorServer,
  until: (s: { tasks: { id: string; history: RunEvent[] }[] }) => boolean,
) {
  return new Promise<{ tasks: { id: string; history: RunEvent[] }[] }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: m.port, path: `/events?token=${m.token}` },
      (res) => {
        let buf = '';
        let held: { tasks: { id: string; history: RunEvent[] }[] } | undefined;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buf += chunk;
          let end = buf.indexOf('\n\n');
          while (end >= 0) {
            const block = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = block.split('\n').find((l) => l.startsWith('data: '));
            if (block.includes('event: snapshot') && data) held = JSON.parse(data.slice(6));
            else if (block.includes('event: patch') && data && held) {
              // a patch replaces the tasks it names (what the page does, in short)
              const patch = JSON.parse(data.slice(6)) as { tasks: typeof held.tasks };
              const byId = new Map(held.tasks.map((t) => [t.id, t]));
              for (const t of patch.tasks) byId.set(t.id, t);
              held = { tasks: [...byId.values()] };
            }
            if (held && data) {
              const snap = held;
              if (until(snap)) {
                req.destroy();
                resolve(snap);
                return;
              }
            }
            end = buf.indexOf('\n\n');
          }
        });
      },
    );
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

beforeEach(() => {
  ws = workspace();
});
afterEach(async () => {
  await monitor?.close();
  monitor = undefined;
  rmSync(ws, { recursive: true, force: true });
});

describe('monitor server security', () => {
  it('serves the page with the token and refuses a missing or wrong one', async () => {
    monitor = await startMonitor({ workspace: ws });
    expect(monitor.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    const ok = await get(monitor.port, `/?token=${monitor.token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('switchyard monitor');
    for (const path of [
      '/',
      '/?token=',
      `/?token=${monitor.token}x`,
      '/events',
      '/raw/events?token=nope',
    ]) {
      const res = await get(monitor.port, path);
      expect(res.status, path).toBe(403);
      expect(res.body).not.toContain('switchyard monitor');
    }
  });

  it('refuses a foreign Host header (DNS rebinding) even with the right token', async () => {
    monitor = await startMonitor({ workspace: ws });
    const path = `/snapshot.json?token=${monitor.token}`;
    expect((await get(monitor.port, path, `localhost:${monitor.port}`)).status).toBe(200);
    for (const host of [
      `evil.example:${monitor.port}`,
      '127.0.0.1',
      `127.0.0.1:${monitor.port + 1}`,
    ]) {
      const res = await get(monitor.port, path, host);
      expect(res.status, host).toBe(421);
      expect(res.body).not.toContain('"tasks"');
    }
  });

  it('refuses a bind address other than 127.0.0.1, and is read-only', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'localhost', '::1']) {
      await expect(startMonitor({ workspace: ws, host }), host).rejects.toMatchObject({
        code: 'SY_USAGE',
      });
    }
    monitor = await startMonitor({ workspace: ws });
    const post = await get(monitor.port, `/?token=${monitor.token}`, undefined, 'POST');
    expect(post.status).toBe(405);
  });

  it('loads nothing from elsewhere: a strict CSP and no external URL in the page', async () => {
    monitor = await startMonitor({ workspace: ws });
    const page = await get(monitor.port, `/?token=${monitor.token}`);
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'none'");
    expect(page.body).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });

  it('masks environment values and secret-named keys in raw payloads', () => {
    expect(
      maskSecrets({
        targetSnapshot: { runtime: { env: { API_KEY: 'sk-123', MODE: 'x' }, command: ['a'] } },
        apiKey: 'sk-9',
        task: 'g/a',
      }),
    ).toEqual({
      targetSnapshot: { runtime: { env: { API_KEY: '***', MODE: '***' }, command: ['a'] } },
      apiKey: '***',
      task: 'g/a',
    });
  });

  it('a state file served raw has its target environment masked', async () => {
    const state = newTaskState('g/a');
    state.decisions.worker = {
      stage: 'worker',
      target: 't',
      source: 'route',
      routeId: 'cloud-G03',
      catalogSource: 'bundled',
      catalogRevision: 'r',
      targetSnapshot: { runtime: { env: { OPENAI_API_KEY: 'sk-live-secret' } } },
      candidates: ['t'],
      used: ['t'],
      decidedAt: new Date().toISOString(),
    };
    mkdirSync(join(ws, 'agent-task', '.switchyard', 'tasks', 'g'), { recursive: true });
    writeFileSync(
      join(ws, 'agent-task', '.switchyard', 'tasks', 'g', 'a.json'),
      JSON.stringify(state),
    );
    monitor = await startMonitor({ workspace: ws });
    const raw = await get(monitor.port, `/raw/state?task=g/a&token=${monitor.token}`);
    expect(raw.status).toBe(200);
    expect(raw.body).not.toContain('sk-live-secret');
    expect(raw.body).toContain('"OPENAI_API_KEY": "***"');
    // as the file store keeps it: with its version (a file without one counts as revision 1)
    expect(JSON.parse(raw.body)).toMatchObject({ task: 'g/a', revision: 1 });
    const traversal = await get(
      monitor.port,
      `/raw/state?task=../../etc/passwd&token=${monitor.token}`,
    );
    expect(traversal.status).toBe(404);
  });
});

describe('monitor follows persisted state', () => {
  it('pushes a snapshot when events.jsonl grows, without a dispatcher', async () => {
    monitor = await startMonitor({ workspace: ws });
    const first = await nextSnapshot(monitor, () => true);
    expect(first.tasks.map((t) => t.id)).toEqual(['g/a', 'g/b']);
    const file = join(ws, 'agent-task', '.switchyard', 'events.jsonl');
    mkdirSync(join(ws, 'agent-task', '.switchyard'), { recursive: true });
    const live = nextSnapshot(monitor, (s) =>
      s.tasks.some((t) => t.history.some((e) => e.type === 'target.failover')),
    );
    const event: RunEvent = {
      type: 'target.failover',
      at: new Date().toISOString(),
      runId: 'r1',
      task: 'g/a',
      stage: 'worker',
      from: 'one',
      to: 'two',
      class: 'provider-quota',
      evidence: ['429 quota'],
    };
    appendFileSync(file, `${JSON.stringify(event)}\n`);
    const snap = await live;
    const a = snap.tasks.find((t) => t.id === 'g/a')!;
    expect(a.history).toEqual([expect.objectContaining({ from: 'one', to: 'two' })]);
  });

  /** A line of the event log: `task` failed over to `to`. */
  const failover = (task: string, to: string) => `${JSON.stringify(failoverEvent(task, to))}\n`;
  const historyOf = (s: { tasks: { id: string; history: RunEvent[] }[] }, id: string) =>
    s.tasks.find((t) => t.id === id)?.history ?? [];
  /** The text of the first log, two failovers of g/a, which the monitor has shown. */
  const FIRST_LOG = () => failover('g/a', 'two') + failover('g/a', 'three');

  /** A monitor that has shown a log of two events of g/a; returns the log's path. */
  async function monitorPastFirstLog(): Promise<{ file: string; monitor: MonitorServer }> {
    const dir = join(ws, 'agent-task', '.switchyard');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'events.jsonl');
    writeFileSync(file, FIRST_LOG());
    monitor = await startMonitor({ workspace: ws });
    await nextSnapshot(monitor, (s) => historyOf(s, 'g/a').length === 2);
    return { file, monitor };
  }

  it('reads a replaced event log from the start (a new run in a state folder made again)', async () => {
    const { file, monitor } = await monitorPastFirstLog();
    const next = nextSnapshot(monitor, (s) => historyOf(s, 'g/b').length === 1);
    // a shorter log in its place: the old position is past its end
    writeFileSync(file, failover('g/b', 'four'));
    const snap = await next;
    expect(historyOf(snap, 'g/a')).toEqual([]);
    expect(historyOf(snap, 'g/b')).toEqual([expect.objectContaining({ to: 'four' })]);
  });

  it('reads a replaced event log from the start when it has a line end at the old position', async () => {
    const { file, monitor } = await monitorPastFirstLog();
    const next = nextSnapshot(monitor, (s) => historyOf(s, 'g/b').length > 0);
    // lines as long as the old ones, then one more: the old position is a line end of it
    const replacement = failover('g/b', 'two') + failover('g/b', 'eight') + failover('g/b', 'four');
    expect(replacement[Buffer.byteLength(FIRST_LOG()) - 1]).toBe('\n');
    writeFileSync(file, replacement);
    const snap = await next;
    expect(historyOf(snap, 'g/a')).toEqual([]);
    expect(historyOf(snap, 'g/b').map((e) => (e.type === 'target.failover' ? e.to : ''))).toEqual([
      'two',
      'eight',
      'four',
    ]);
  });

  it('tails the normalized output of an attempt of the log, live; unknown attempts are refused', async () => {
    const dir = join(ws, 'agent-task', '.switchyard');
    const attemptDir = join(dir, 'attempts', 'att-1');
    mkdirSync(attemptDir, { recursive: true });
    writeFileSync(join(attemptDir, 'normalized-output.log'), 'assistant: first line\n');
    const started: RunEvent = {
      type: 'attempt.started',
      at: new Date().toISOString(),
      runId: 'r1',
      task: 'g/a',
      role: 'worker',
      planLoop: 1,
      attempt: 'att-1',
      target: 'one',
      agent: 'fake',
      model: 'm',
      attemptDir,
    };
    writeFileSync(join(dir, 'events.jsonl'), `${JSON.stringify(started)}\n`);
    monitor = await startMonitor({ workspace: ws });
    expect((await get(monitor.port, `/tail?attempt=../../x&token=${monitor.token}`)).status).toBe(
      404,
    );
    const text = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const req = request(
        {
          host: '127.0.0.1',
          port: monitor!.port,
          path: `/tail?attempt=att-1&token=${monitor!.token}`,
        },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            for (const line of chunk.split('\n'))
              if (line.startsWith('data: ')) seen += JSON.parse(line.slice(6));
            if (seen === 'assistant: first line\n')
              appendFileSync(join(attemptDir, 'normalized-output.log'), 'tool: Write src/a.js\n');
            if (seen.includes('tool: Write')) {
              req.destroy();
              resolve(seen);
            }
          });
        },
      );
      req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
      req.end();
    });
    expect(text).toBe('assistant: first line\ntool: Write src/a.js\n');
  });
});

describe('on a shared store', () => {
  it("shows the backlog's tasks and says which machine holds a plan, state or diff it lacks", async () => {
    const worktree = (task: string) => ({
      branch: `switchyard/${task}`,
      path: join(ws, 'elsewhere', task), // another machine's worktree: no folder here
      workdir: join(ws, 'elsewhere', task),
      sourceBranch: 'main',
      baseCommit: 'a'.repeat(40),
      rolledBack: [],
    });
    const states = [
      { ...newTaskState('g/a'), isolation: worktree('g/a') },
      { ...newTaskState('g/z'), isolation: worktree('g/z') },
    ];
    monitor = await startMonitor({
      workspace: ws,
      eventFeed: { follow: async () => ({ stop: async () => undefined }) },
      sharedFacts: async () => ({
        states,
        claims: [],
        escalations: [],
        backlog: [
          { task: 'g/a', status: 'archived', holder: 'host-a/11/-/run-1' },
          { task: 'g/b', status: 'ready', dependsOn: [] },
          { task: 'g/z', status: 'taken', holder: 'host-b/22/-/run-2' },
        ],
      }),
    });
    const at = (path: string) => get(monitor!.port, `${path}&token=${monitor!.token}`);
    const page = JSON.parse((await at('/snapshot.json?')).body) as {
      tasks: { id: string; state: string; machine?: string }[];
      counts: Record<string, number>;
    };
    expect(page.tasks.map((t) => [t.id, t.state, t.machine])).toEqual([
      ['g/a', 'done', 'host-a pid 11'],
      ['g/b', 'waiting', undefined],
      ['g/z', 'running', 'host-b pid 22'],
    ]);
    expect(page.counts).toEqual({ running: 1, waiting: 1, blocked: 0, done: 1 });
    // g/z has no folder in this clone: its plan is on host-b, not an empty 200 or a 404.
    const plan = await at('/raw/plan?task=g/z');
    expect(plan.status).toBe(409);
    expect(plan.body).toContain('host-b pid 22');
    expect((await at('/raw/plan?task=g/a')).status).toBe(200);
    // the state is the store's
    const state = await at('/raw/state?task=g/z');
    expect(state.status).toBe(200);
    expect(JSON.parse(state.body)).toMatchObject({ task: 'g/z' });
    expect((await at('/raw/state?task=g/b')).status).toBe(409);
    // a worktree of another clone is not read as this clone's files
    const diff = await at('/diff?task=g/a');
    expect(diff.status).toBe(409);
    expect(diff.body).toContain('worktree of g/a');
    expect(diff.body).toContain('host-a pid 11');
  });
});
