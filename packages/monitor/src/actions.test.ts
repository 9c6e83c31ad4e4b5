import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { buildEscalation } from '@switchyard/engine';
import { readBundle, writeEscalation } from '@switchyard/store-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MonitorServer, startMonitor } from './server.js';

/**
 * Actions through the monitor's HTTP surface, with no run going (the `switchyard resolve`
 * path): every refusal has its own status and changes nothing; an action carried out is in
 * the task's state, its escalation files, the event log and the work log.
 */
let ws: string;
let monitor: MonitorServer | undefined;
const stateDir = () => join(ws, 'agent-task', '.switchyard');

beforeEach(async () => {
  ws = mkdtempSync(join(tmpdir(), 'sy-monitor-actions-'));
  for (const id of ['g/a', 'g/b']) {
    mkdirSync(join(ws, 'agent-task', id), { recursive: true });
    writeFileSync(
      join(ws, 'agent-task', id, 'PLAN.md'),
      '---\nroute: cloud-G01\n---\n# t\n\n## Modified Files Summary\n\n- src/x.js\n\n## Implementation Checklist\n\n- [ ] do it\n',
    );
  }
  // g/a blocked with its escalation written, g/b blocked without one (a skip has nothing to close)
  mkdirSync(join(stateDir(), 'tasks', 'g'), { recursive: true });
  const blocked = {
    reason: 'no change was made',
    stage: 'worker',
    evidence: ['x'],
    at: '2026-12-01T00:00:00.000Z',
  };
  for (const id of ['g/a', 'g/b'])
    writeFileSync(
      join(stateDir(), 'tasks', `${id}.json`),
      JSON.stringify({ ...newTaskState(id), blocked }),
    );
  const { bundle, interview } = buildEscalation({
    workspace: ws,
    task: {
      id: 'g/a',
      group: 'g',
      name: 'a',
      dir: join(ws, 'agent-task/g/a'),
      planFile: 'agent-task/g/a/PLAN.md',
    },
    state: { ...newTaskState('g/a'), blocked },
    downstream: [],
    bundlePath: 'agent-task/.switchyard/escalations/g/a.failure-bundle.json',
    now: new Date('2026-12-01T00:00:01.000Z'),
  });
  await writeEscalation(stateDir(), bundle, interview);
});
afterEach(async () => {
  await monitor?.close();
  monitor = undefined;
  rmSync(ws, { recursive: true, force: true });
});

/** One POST /action; headers default to what the monitor's own page sends. */
function post(
  m: MonitorServer,
  body: string,
  headers: Record<string, string | undefined> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const all: Record<string, string> = {};
  const given = {
    host: `127.0.0.1:${m.port}`,
    origin: `http://127.0.0.1:${m.port}`,
    'content-type': 'application/json',
    'x-switchyard-token': m.token,
    ...headers,
  };
  for (const [k, v] of Object.entries(given)) if (v !== undefined) all[k] = v;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: m.port, path: '/action', method: 'POST', headers: all },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let json: Record<string, unknown> = { text };
          try {
            json = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const blockedNow = (id: string) =>
  JSON.parse(readFileSync(join(stateDir(), 'tasks', `${id}.json`), 'utf8')).blocked !== undefined;
const humanEvents = () =>
  (existsSync(join(stateDir(), 'events.jsonl'))
    ? readFileSync(join(stateDir(), 'events.jsonl'), 'utf8')
    : ''
  )
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'human.action');

describe('monitor actions', () => {
  it('refuse without the token, from another Origin or Host, or with a bad body; change nothing', async () => {
    monitor = await startMonitor({ workspace: ws });
    const retry = JSON.stringify({ action: 'retry', task: 'g/a' });
    expect((await post(monitor, retry, { 'x-switchyard-token': undefined })).status).toBe(403);
    expect((await post(monitor, retry, { 'x-switchyard-token': 'x'.repeat(32) })).status).toBe(403);
    const foreign = await post(monitor, retry, { origin: 'http://evil.example' });
    expect(foreign).toMatchObject({ status: 403 });
    expect(foreign.json.text).toContain(
      "an action must come from this monitor's own page (Origin http://evil.example)",
    );
    expect((await post(monitor, retry, { origin: undefined })).status).toBe(403);
    expect((await post(monitor, retry, { host: 'evil.example' })).status).toBe(421);
    expect((await post(monitor, retry, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(monitor, '{not json')).status).toBe(400);
    const unknown = await post(monitor, JSON.stringify({ action: 'delete', task: 'g/a' }));
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toMatch(/^action: /);
    expect((await post(monitor, JSON.stringify({ action: 'retry' }))).json.message).toBe(
      'task: retry needs a task',
    );
    // No run is going: nothing to stop; g/b has no open escalation to skip.
    const stop = await post(monitor, JSON.stringify({ action: 'stop-run' }));
    expect(stop).toMatchObject({
      status: 409,
      json: { code: 'SY_ACTION_REFUSED', message: 'No run is going.' },
    });
    const skip = await post(monitor, JSON.stringify({ action: 'skip', task: 'g/b' }));
    expect(skip).toMatchObject({
      status: 409,
      json: { message: 'Task g/b has no open escalation to skip.' },
    });
    expect(blockedNow('g/a')).toBe(true);
    expect(humanEvents()).toEqual([]);
    await monitor.close();
    // A read-only monitor takes no action at all.
    monitor = await startMonitor({ workspace: ws, readOnly: true });
    expect((await post(monitor, retry)).status).toBe(405);
    expect(blockedNow('g/a')).toBe(true);
  });

  it('resolve with an answer and retry go the way of `switchyard resolve`, recorded in events and work log', async () => {
    monitor = await startMonitor({ workspace: ws });
    const resolve = await post(
      monitor,
      JSON.stringify({
        action: 'resolve',
        task: 'g/a',
        answer: 'retry',
        note: 'the fixture is fixed',
      }),
    );
    expect(resolve).toMatchObject({
      status: 200,
      json: { ok: true, action: 'resolve', task: 'g/a' },
    });
    expect(blockedNow('g/a')).toBe(false);
    expect(readBundle(stateDir(), 'g/a')?.resolution).toMatchObject({
      action: 'retry',
      note: 'the fixture is fixed',
    });
    const retry = await post(monitor, JSON.stringify({ action: 'retry', task: 'g/b' }));
    expect(retry).toMatchObject({
      status: 200,
      json: { detail: 'retried: it runs with a fresh failure budget on the next `switchyard run`' },
    });
    expect(blockedNow('g/b')).toBe(false);
    // Not blocked any more: a second retry is refused.
    expect((await post(monitor, JSON.stringify({ action: 'retry', task: 'g/b' }))).status).toBe(
      409,
    );
    expect(humanEvents()).toEqual([
      expect.objectContaining({
        action: 'resolve',
        task: 'g/a',
        answer: 'retry',
        note: 'the fixture is fixed',
        via: 'monitor',
      }),
      expect.objectContaining({ action: 'retry', task: 'g/b', via: 'monitor' }),
    ]);
    const log = readFileSync(join(ws, 'agent-task', 'g', 'WORK_LOG.md'), 'utf8');
    expect(log).toMatch(
      /\| HUMAN \| g\/a\/PLAN\.md \| 1 \| human \| - \| .* via monitor \| resolve: retry \(the fixture is fixed\) \| - \|/,
    );
    expect(log).toMatch(
      /\| HUMAN \| g\/b\/PLAN\.md \| 1 \| human \| - \| .* via monitor \| retry \| - \|/,
    );
  });
});
