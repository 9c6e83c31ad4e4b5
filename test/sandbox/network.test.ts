// `network: "none"` gives a sandboxed agent loopback only: a server listening on the machine's
// 127.0.0.1 is out of its reach, while with `network: "host"` the same agent reaches it. The
// agent's command starts with a wrapper that tries to connect and tells the fake agent the
// outcome through its environment; the fake agent writes it into the task's file.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';

const WRAPPER = `import { connect } from 'node:net';
import { spawnSync } from 'node:child_process';
const reached = await new Promise((done) => {
  const s = connect(Number(process.env.PROBE_PORT), '127.0.0.1');
  s.on('connect', () => { s.destroy(); done('1'); });
  s.on('error', () => done('0'));
});
const [file, ...args] = process.argv.slice(2);
const r = spawnSync(file, args, { stdio: 'inherit', env: { ...process.env, REACHED: reached } });
process.exit(r.status ?? 1);
`;

for (const network of ['host', 'none'] as const)
  it(`network "${network}": a server on the machine's loopback is ${network === 'none' ? 'out of reach' : 'reached'}`, {
    timeout: 120_000,
  }, async () => {
    const server = createServer((c) => c.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const ws = new Workspace();
    const reached = [
      { write: { path: 'src/t.txt', content: 'reached\n' } },
      { fillChecklist: true },
    ];
    ws.catalog({
      a: {
        scenario: {
          cases: [
            { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] },
            { when: { env: { REACHED: '1' } }, steps: reached },
          ],
          steps: [{ write: { path: 'src/t.txt', content: 'isolated\n' } }, { fillChecklist: true }],
        },
      },
    });
    writeFileSync(ws.path('wrapper.mjs'), WRAPPER);
    const cat = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    const cmd = cat.targets.a.runtime.command as string[];
    cat.targets.a.runtime.command = [cmd[0], ws.path('wrapper.mjs'), ...cmd];
    writeFileSync(ws.catalogFile, JSON.stringify(cat));
    ws.task('g/t', { files: ['src/t.txt'] });
    ws.config({ sandbox: { mode: 'bwrap', writable: [ws.dir], network } });
    const run = await ws.run([], { env: { PROBE_PORT: String(port) } });
    server.close();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(ws.read('src/t.txt')).toBe(network === 'none' ? 'isolated\n' : 'reached\n');
  });
