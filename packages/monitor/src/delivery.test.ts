import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failoverEvent } from './failover-event.fixture.js';
import { type MonitorServer, startMonitor } from './server.js';

/**
 * Delivery guarantees of the live stream: the last change before a run ends reaches an open
 * page, however the close and the change interleave. Every test here provokes its race
 * deterministically (the change and the close in the same tick), no sleeps.
 */
const PLAN = `---
route: cloud-G03
---
# task

## Modified Files Summary

- src/file.js

## Implementation Checklist

- [ ] do it
`;

let ws: string;
let monitor: MonitorServer | undefined;

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'sy-monitor-delivery-'));
  for (const id of ['g/a', 'g/b']) {
    mkdirSync(join(ws, 'agent-task', id), { recursive: true });
    writeFileSync(join(ws, 'agent-task', id, 'PLAN.md'), PLAN);
  }
  mkdirSync(join(ws, 'agent-task', '.switchyard'), { recursive: true });
});
afterEach(async () => {
  await monitor?.close();
  monitor = undefined;
  rmSync(ws, { recursive: true, force: true });
});

interface Stream {
  /** Resolves with the first message (event name and parsed data). */
  first: Promise<{ event: string; data: unknown }>;
  /** Resolves with every message once the server ends the stream. */
  ended: Promise<{ event: string; data: unknown }[]>;
}

/** Reads /events until the server ends it. */
function openStream(m: MonitorServer): Stream {
  const messages: { event: string; data: unknown }[] = [];
  let onFirst: (m: { event: string; data: unknown }) => void = () => undefined;
  const first = new Promise<{ event: string; data: unknown }>((r) => (onFirst = r));
  const ended = new Promise<{ event: string; data: unknown }[]>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: m.port, path: `/events?token=${m.token}` },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
            const block = buf.slice(0, end).split('\n');
            buf = buf.slice(end + 2);
            const event = block.find((l) => l.startsWith('event: '))?.slice(7);
            const data = block.find((l) => l.startsWith('data: '))?.slice(6);
            if (!event || data === undefined) continue;
            messages.push({ event, data: JSON.parse(data) });
            if (messages.length === 1) onFirst(messages[0]!);
          }
        });
        res.on('end', () => resolve(messages));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { first, ended };
}

describe('the live stream loses no update', () => {
  it('a change written right before close() reaches the open page', async () => {
    monitor = await startMonitor({ workspace: ws });
    const stream = openStream(monitor);
    await stream.first;
    appendFileSync(
      join(ws, 'agent-task', '.switchyard', 'events.jsonl'),
      `${JSON.stringify(failoverEvent('g/b'))}\n`,
    );
    await monitor.close();
    monitor = undefined;
    const messages = await stream.ended;
    // the last patch, then the end of the stream (the page stops reconnecting)
    expect(JSON.stringify(messages.at(-2))).toContain('"to":"two"');
    expect(messages.at(-1)).toMatchObject({ event: 'end' });
  });
});
