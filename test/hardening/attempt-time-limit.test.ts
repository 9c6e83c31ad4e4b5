import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentWorkspace, until, Workspace } from '../dispatcher/helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const finishWork = { steps: [{ fillChecklist: true }] };

/** True while `pid` is a live (non-zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function pidsIn(ws: Workspace, file: string): number[] {
  return ws.read(file).split('\n').filter(Boolean).map(Number);
}

function pidsAt(path: string): number[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map(Number);
}

/** Sets `runtime.max_attempt_seconds` of one target in the workspace's catalog. */
function limitTarget(ws: Workspace, id: string, seconds: number): void {
  const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
  catalog.targets[id].runtime.max_attempt_seconds = seconds;
  writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 2));
}

describe('attempt time limit: ended with its whole process tree, retried on the same target', {
  timeout: 180_000,
}, () => {
  it('an agent printing every second is stopped at runtime.max_attempt_seconds as a timeout, not failed over', async () => {
    const ws = new Workspace();
    ws.catalog(
      {
        a: {
          scenario: {
            cases: [
              approve,
              {
                when: { role: 'worker', attempt: 1 },
                steps: [{ sayEvery: { text: 'still working', intervalMs: 1000 } }],
              },
            ],
            ...finishWork,
          },
        },
        b: { scenario: { cases: [approve], ...finishWork } },
      },
      ['a', 'b'],
      ['b'],
    ); // reviews on b: only a's worker attempts carry the 2 s limit
    limitTarget(ws, 'a', 2);
    ws.task('g/t', { files: ['src/t.ts'] });
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    const events = ws.events();
    const first = events.find((e) => e.type === 'attempt.finished' && e.role === 'worker');
    expect(first).toMatchObject({ target: 'a', result: 'process-termination' });
    expect(first?.evidence).toEqual(['ended by time-limit']);
    // Ended by the limit (2 s), not by the stall watchdog (it prints every second): never
    // before the limit; how long after it depends on the machine, so no upper bound.
    expect(first?.durationMs as number).toBeGreaterThanOrEqual(2000);
    expect(events.filter((e) => e.type === 'target.failover')).toEqual([]);
    expect(events.find((e) => e.type === 'attempt.retry-scheduled')).toMatchObject({
      role: 'worker',
      target: 'a',
    });
    const locator = JSON.parse(readFileSync(`${String(first?.attemptDir)}/locator.json`, 'utf8'));
    expect(locator.endedBy).toBe('time-limit');
  });

  it('a setsid grandchild is ended with the timed-out attempt, and with an attempt that ends normally', async () => {
    // The pid files live outside the workspace: a file the agent leaves there outside the
    // write set is (rightly) a correction.
    const pids = mkdtempSync(join(tmpdir(), 'sy-pids-'));
    const detached = (pidFile: string) => ({
      spawn: { sleepMs: 600_000, detached: true, pidFile: join(pids, pidFile) },
    });
    const ws = agentWorkspace({
      config: { maxAttemptSeconds: 2 },
      cases: [
        {
          when: { role: 'worker', attempt: 1 },
          steps: [detached('timed-out.pids'), { hang: true }],
        },
      ],
      steps: [detached('normal.pids'), { fillChecklist: true }],
    });
    ws.task('g/t', { files: ['src/t.ts'] });
    const result = await ws.run();
    expect(result.code, result.stderr).toBe(0);
    const timedOut = pidsAt(join(pids, 'timed-out.pids'));
    const normal = pidsAt(join(pids, 'normal.pids'));
    expect(timedOut).toHaveLength(1);
    expect(normal.length).toBeGreaterThan(0);
    for (const pid of [...timedOut, ...normal]) expect(alive(pid), `pid ${pid}`).toBe(false);
    const finished = ws.events().filter((e) => e.type === 'attempt.finished');
    // The hanging attempt is ended at the limit, then the work and the review pass. On a
    // loaded machine a short attempt may pass the 2 s limit as well: then it was ended the same
    // way and retried (its grandchildren are checked above), never a different outcome.
    expect(finished.map((e) => `${e.role}:${e.result}`).join(' ')).toMatch(
      /^worker:process-termination (worker:process-termination )*worker:success (review:process-termination )*review:success$/,
    );
    rmSync(pids, { recursive: true, force: true });
  });

  it('a setsid grandchild is ended when the dispatcher is stopped (SIGTERM, exit 130)', async () => {
    const ws = new Workspace();
    ws.catalog({
      a: {
        scenario: {
          steps: [
            { spawn: { sleepMs: 600_000, detached: true, pidFile: 'g.pids' } },
            { hang: true },
          ],
        },
      },
    });
    ws.task('g/t', { files: ['src/t.ts'] });
    let pid = 0;
    const run = ws.run([], {
      onSpawn: (p) => {
        pid = p;
      },
    });
    await until(() => existsSync(ws.path('g.pids')) && ws.read('g.pids').endsWith('\n'));
    const [grandchild] = pidsIn(ws, 'g.pids');
    expect(alive(grandchild as number)).toBe(true);
    process.kill(pid, 'SIGTERM');
    const result = await run;
    expect(result.code, result.stderr).toBe(130);
    expect(alive(grandchild as number)).toBe(false);
  });
});
