import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { writeEvent } from './limits.js';
import { type MonitorServer, startMonitor } from './server.js';

let monitor: MonitorServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await monitor?.close();
  monitor = undefined;
});

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sy-monitor-limits-'));
  mkdirSync(join(dir, 'agent-task', 'g', 'a'), { recursive: true });
  writeFileSync(
    join(dir, 'agent-task', 'g', 'a', 'PLAN.md'),
    '---\nroute: cloud-G03\n---\n# a\n\n## Modified Files Summary\n\n- src/a.js\n\n## Implementation Checklist\n\n- [ ] x\n',
  );
  return dir;
}

/** A raw TCP connection; resolves `closed` when the server ends it. */
function rawSocket(port: number): { socket: Socket; closed: Promise<void>; data: () => string } {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (c) => {
    data += c;
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, closed, data: () => data };
}

function status(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

describe('monitor limits', () => {
  it('closes a stream whose reader fell behind instead of buffering without bound', () => {
    // a reader that never takes a byte: everything written stays buffered
    const stalled = new Writable({ highWaterMark: 16, write: () => undefined });
    let sent = 0;
    for (let i = 0; i < 1000; i++)
      if (writeEvent(stalled, 'patch', 'x'.repeat(1000), 64 * 1024)) sent += 1;
    expect(stalled.destroyed).toBe(true);
    // at most the bound plus one event was ever held for it
    expect(sent).toBeLessThanOrEqual(Math.ceil((64 * 1024) / 1000) + 2);
    expect(writeEvent(stalled, 'patch', 'x', 64 * 1024)).toBe(false);
    // a reader that keeps up is never closed
    const reading = new Writable({ write: (_c, _e, done) => done() });
    for (let i = 0; i < 1000; i++)
      expect(writeEvent(reading, 'patch', 'x'.repeat(1000), 1)).toBe(true);
  });

  it('caps half-open connections without a token, and live streams with one', {
    timeout: 60_000,
  }, async () => {
    const ws = workspace();
    try {
      monitor = await startMonitor({
        workspace: ws,
        limits: { maxConnections: 8, maxStreams: 2, headersTimeoutMs: 1000 },
      });
      const port = monitor.port;
      // Sockets that connect and send nothing: only 8 are held, the rest closed at once,
      // and the held ones are closed after the headers timeout.
      const idle = Array.from({ length: 40 }, () => rawSocket(port));
      await Promise.all(idle.map((s) => new Promise((r) => s.socket.once('connect', r))));
      await Promise.all(idle.slice(8).map((s) => s.closed));
      await Promise.all(idle.slice(0, 8).map((s) => s.closed));
      expect(await status(port, `/snapshot.json?token=${monitor.token}`)).toBe(200);

      // With the token: two live streams, the third is refused with 503; one freed, one more.
      const open = (n: number) => {
        const s = rawSocket(port);
        s.socket.write(
          `GET /events?token=${monitor!.token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        );
        return { ...s, n };
      };
      const first = open(1);
      const second = open(2);
      const wait = async (check: () => boolean) => {
        while (!check()) await new Promise((r) => setTimeout(r, 10));
      };
      await wait(() => first.data().includes('event: snapshot'));
      await wait(() => second.data().includes('event: snapshot'));
      const third = open(3);
      await wait(() => third.data().includes('HTTP/1.1 503'));
      expect(third.data()).toContain('too many open pages');
      first.socket.destroy();
      await first.closed;
      const fourth = open(4);
      await wait(() => fourth.data().includes('event: snapshot') || fourth.data().includes('503'));
      expect(fourth.data()).toContain('event: snapshot');
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
