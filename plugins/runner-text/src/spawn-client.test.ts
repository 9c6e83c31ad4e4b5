import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROCESS_MARKER_VAR } from '@switchyard/runner-kit';
import { isSameProcessAlive } from '@switchyard/utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HelperSpawnRequest, SpawnHelperClient } from './spawn-client.js';

const ENTRY = fileURLToPath(new URL('./spawn-helper.ts', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function request(argv: string[], marker = `m-${process.pid}-${Date.now()}-${Math.random()}`) {
  const dir = mkdtempSync(join(tmpdir(), 'sy-spawn-helper-'));
  dirs.push(dir);
  const [file = '', ...args] = argv;
  const req: HelperSpawnRequest = {
    file,
    args,
    cwd: dir,
    env: { ...process.env, [PROCESS_MARKER_VAR]: marker },
    stdout: join(dir, 'stdout.raw'),
    stderr: join(dir, 'stderr.raw'),
    marker: { name: PROCESS_MARKER_VAR, value: marker },
  };
  return req;
}

/** A shell agent that waits in its folder until {@link openGate} creates `gate`, then runs `then`. */
const GATED = (then: string) => `while [ ! -e gate ]; do sleep 0.01; done; ${then}`;
const openGate = (req: HelperSpawnRequest) => writeFileSync(join(req.cwd, 'gate'), '');

/** ppid and process group of a live process, from /proc. */
function parentAndGroup(pid: number): { ppid: number; pgid: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

describe('spawn helper', () => {
  it('starts agents from one helper process, each leading its own group, with exit status and output', async () => {
    const client = new SpawnHelperClient(ENTRY);
    const ok = request([
      'sh',
      '-c',
      `echo "out $SWITCHYARD_ATTEMPT_ID"; echo err >&2; ${GATED('')}`,
    ]);
    const failing = request(['sh', '-c', 'exit 3']);
    const killed = request(['sh', '-c', 'kill -TERM $$']);
    const [a, b, c] = await Promise.all([ok, failing, killed].map((r) => client.spawn(r)));
    if (!a || !b || !c) throw new Error('not started');
    expect(new Set([a.pid, b.pid, c.pid]).size).toBe(3);
    expect(a.startToken).toMatch(/:\d+$/);
    expect(isSameProcessAlive({ pid: a.pid, startToken: a.startToken })).toBe(true);
    expect(parentAndGroup(a.pid)).toEqual({ ppid: client.pid, pgid: a.pid });
    expect(client.pid).not.toBe(process.pid);
    openGate(ok);
    expect(await a.exit).toEqual({ exitCode: 0, signal: null, exitObserved: true });
    expect(await b.exit).toEqual({ exitCode: 3, signal: null, exitObserved: true });
    expect(await c.exit).toEqual({ exitCode: null, signal: 'SIGTERM', exitObserved: true });
    expect(readFileSync(ok.stdout, 'utf8')).toBe(`out ${ok.marker.value}\n`);
    expect(readFileSync(ok.stderr, 'utf8')).toBe('err\n');
  });

  it('reports a command that cannot start', async () => {
    const client = new SpawnHelperClient(ENTRY);
    await expect(client.spawn(request(['/nonexistent/agent-cli']))).rejects.toMatchObject({
      code: 'ENOENT',
      message: expect.stringContaining('/nonexistent/agent-cli'),
    });
  });

  it('agents outlive a killed helper; their end is still seen, and the next launch starts a new helper', async () => {
    const client = new SpawnHelperClient(ENTRY);
    const req = request(['sh', '-c', GATED('echo finished')]);
    const agent = await client.spawn(req);
    const helper = client.pid;
    if (helper === undefined) throw new Error('no helper');
    process.kill(helper, 'SIGKILL');
    // the client notices the helper's end (its pipes close) and forgets it
    await vi.waitFor(() => expect(client.pid).toBeUndefined(), { timeout: 20_000, interval: 10 });
    expect(isSameProcessAlive({ pid: agent.pid, startToken: agent.startToken })).toBe(true);
    openGate(req);
    expect(await agent.exit).toEqual({ exitCode: null, signal: null, exitObserved: false });
    expect(readFileSync(req.stdout, 'utf8')).toBe('finished\n');
    const next = await client.spawn(request(['true']));
    expect(client.pid).not.toBe(helper);
    expect(await next.exit).toMatchObject({ exitCode: 0, exitObserved: true });
  });
});
