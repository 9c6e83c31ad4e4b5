import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../engine/cli-in-process.js';
import { agentWorkspace, Workspace } from './helpers.js';

/** A real local HTTP server that records JSON bodies; `failFirst` requests get a 503. */
async function receiver(failFirst = 0): Promise<{
  url: string;
  bodies: Record<string, unknown>[];
  hits: number;
  server: Server;
}> {
  const state = { bodies: [] as Record<string, unknown>[], hits: 0 };
  const server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (d) => {
      data += d;
    });
    req.on('end', () => {
      state.hits += 1;
      if (state.hits <= failFirst) {
        res.writeHead(503).end();
        return;
      }
      state.bodies.push({
        ...JSON.parse(data),
        contentType: req.headers['content-type'],
        auth: req.headers.authorization,
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook?token=secret`,
    server,
    get bodies() {
      return state.bodies;
    },
    get hits() {
      return state.hits;
    },
  };
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

// `switchyard run` in this process (test/engine/cli-in-process.ts): its notifier, the HTTP
// server and the hook command are real; the run's agents are processes.
describe('notifications (real HTTP server, real hook command)', { timeout: 120_000 }, () => {
  it('posts blocked, escalated and run-finished, retrying a failing webhook; runs the hook command; a dead webhook never fails the run', async () => {
    const hook = await receiver(2);
    servers.push(hook.server);
    const closed = await receiver();
    servers.push(closed.server);
    const deadUrl = closed.url;
    await new Promise<void>((r) => closed.server.close(() => r()));
    const ws = agentWorkspace({
      cases: [
        {
          // Rejected credentials block the task at its first attempt (no budget to spend).
          when: { task: 'g/x' },
          steps: [{ fault: 'auth' }],
        },
      ],
    });
    const log = ws.path('hook-log.jsonl');
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      notify: {
        webhooks: [
          { url: hook.url, headers: { authorization: 'Bearer t0k' } },
          { url: deadUrl, events: ['run-finished'] },
        ],
        commands: [
          {
            argv: [
              process.execPath,
              '-e',
              `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>require('fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({env:process.env.SWITCHYARD_NOTIFY_EVENT, body:JSON.parse(s)})+'\\n'))`,
            ],
            events: ['escalated'],
          },
        ],
        retries: 2, // enough for the two 503s; each retry of the dead webhook waits (0.5 s, 1 s)
        timeoutMs: 5000,
        drainMs: 20000,
      },
    });
    ws.task('g/x', { files: ['src/x.ts'] });
    ws.task('g/y', { files: ['src/y.ts'], dependsOn: ['x'] });
    const result = await runInProcess(ws);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    // Two 503s were retried: all three notifications arrived, once each (deliveries are
    // independent, so a retried one may arrive after a later one).
    expect(hook.bodies.map((b) => b.event).sort()).toEqual([
      'blocked',
      'escalated',
      'run-finished',
    ]);
    expect(hook.hits).toBe(5);
    const byEvent = (e: string) => hook.bodies.find((b) => b.event === e);
    const [blocked, escalated, finished] = ['blocked', 'escalated', 'run-finished'].map(byEvent);
    expect(blocked).toMatchObject({
      task: 'g/x',
      stage: 'worker',
      contentType: 'application/json',
      auth: 'Bearer t0k',
    });
    expect(escalated).toMatchObject({
      task: 'g/x',
      code: 'SY_AUTHENTICATION',
      bundle: 'agent-task/.switchyard/escalations/g/x.failure-bundle.json',
      blockedDownstream: ['g/y'],
    });
    expect(finished).toMatchObject({ exitCode: 3 });
    // The dead webhook was reported, without its query token, and did not change the exit code.
    expect(result.stderr).toMatch(
      /notify: webhook http:\/\/127\.0\.0\.1:\d+\/hook \(run-finished\) failed/,
    );
    expect(result.stderr).not.toContain('token=secret');
    const lines = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ env: 'escalated', body: { event: 'escalated', task: 'g/x' } });
  });

  it('refuses a bad notify block before anything runs (exit 2)', async () => {
    const ws = new Workspace();
    ws.config({ notify: { webhooks: [{ url: 'ftp://example.com/x' }] } });
    ws.catalog({ a: { scenario: { steps: [{ fillChecklist: true }] } } });
    ws.task('g/x', { files: ['src/x.ts'] });
    const result = await runInProcess(ws);
    expect(result.code).toBe(2);
    expect(result.stderr + result.stdout).toContain('notify.webhooks.0.url');
  });
});
