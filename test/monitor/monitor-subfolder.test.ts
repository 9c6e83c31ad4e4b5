import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { get } from 'node:http';
import { expect, it } from 'vitest';
import { CLI, stopWhenTestEnds, Workspace } from '../dispatcher/helpers.js';

/** The monitor's snapshot (GET /snapshot.json) behind its announced URL. */
function snapshotOf(monitorUrl: string): Promise<{ tasks: { id: string }[] }> {
  const page = new URL(monitorUrl);
  return new Promise((resolve, reject) => {
    get(
      `http://127.0.0.1:${page.port}/snapshot.json?token=${page.searchParams.get('token')}`,
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve(JSON.parse(body)));
      },
    ).on('error', reject);
  });
}

// `monitor` finds the workspace from the current folder upward, as status, run and clean do:
// from a folder of the project it refused with "no agent-task/ folder".
it('monitor started in a folder inside the workspace serves that workspace', {
  timeout: 120_000,
}, async () => {
  const ws = new Workspace();
  ws.task('g/a', { files: ['src/a.js'] });
  const inside = `${ws.dir}/src/deep`;
  mkdirSync(inside, { recursive: true });
  const child = spawn(process.execPath, [CLI, 'monitor', '--json', '--read-only'], {
    cwd: inside,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stopWhenTestEnds(child);
  const first = await new Promise<Record<string, string>>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
    });
    child.on('close', (code) => reject(new Error(`monitor ended (${code}): ${err}`)));
  });
  expect(first.type).toBe('monitor.started');
  const snapshot = await snapshotOf(first.monitor_url!);
  expect(snapshot.tasks.map((t) => t.id)).toEqual(['g/a']);
});
