import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { cli, runInProcess } from '../engine/cli-in-process.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const CAP = 2 * 1024 * 1024;
const CAPTURES = ['stdout.raw', 'stderr.raw', 'stream.log', 'normalized-output.log'];

function attemptsDir(ws: Workspace): string {
  return ws.path('agent-task', '.switchyard', 'attempts');
}

function bytesOf(dir: string, names: readonly string[]): number {
  return names
    .map((n) => join(dir, n))
    .filter((f) => existsSync(f))
    .reduce((total, f) => total + statSync(f).size, 0);
}

/** A workspace whose first target floods 50 MB, then hits a quota error; the second finishes. */
async function floodedRun(): Promise<{ ws: Workspace; failed: string }> {
  const ws = new Workspace();
  ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, evidence: { maxAttemptBytes: CAP } });
  ws.catalog(
    {
      flood: {
        scenario: {
          steps: [
            { print: 'FIRST-LINE-OF-OUTPUT', stream: 'stdout' },
            { flood: { bytes: 50 * 1024 * 1024 } },
            { fault: 'quota' },
          ],
        },
      },
      steady: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } },
    },
    ['flood', 'steady'],
    ['steady'],
  );
  ws.task('g/t', { files: ['src/t.ts'] });
  const result = await runInProcess(ws);
  expect(result.code, result.stderr).toBe(0);
  const failed = readdirSync(attemptsDir(ws)).find((a) =>
    existsSync(join(attemptsDir(ws), a, 'evidence-cut.json')),
  );
  if (!failed) throw new Error('no attempt had its evidence cut');
  return { ws, failed: join(attemptsDir(ws), failed) };
}

// The CLI's commands run in this process (test/engine/cli-in-process.ts); the agents are processes.
describe('evidence within bounds', { timeout: 300_000 }, () => {
  it('a failing attempt that printed 50 MB keeps at most evidence.maxAttemptBytes, head and tail, and is still classified from its tail', async () => {
    const { ws, failed } = await floodedRun();
    // the quota error came after 50 MB: the classifier saw it and failed over
    const failover = ws.events().find((e) => e.type === 'target.failover');
    expect(failover).toMatchObject({ from: 'flood', to: 'steady', class: 'provider-quota' });

    expect(bytesOf(failed, CAPTURES)).toBeLessThanOrEqual(CAP);
    const stdout = readFileSync(join(failed, 'stdout.raw'), 'utf8');
    expect(stdout.slice(0, 4096)).toContain('FIRST-LINE-OF-OUTPUT');
    expect(stdout).toMatch(
      /…\[switchyard: \d+ bytes cut here to keep this attempt's evidence within evidence\.maxAttemptBytes \(2097152\); the head and the tail are kept\]…/,
    );
    const cut = JSON.parse(readFileSync(join(failed, 'evidence-cut.json'), 'utf8'));
    expect(cut.maxBytes).toBe(CAP);
    const stdoutCut = cut.cuts.find((c: { file: string }) => c.file === 'stdout.raw');
    expect(stdoutCut.originalBytes).toBeGreaterThan(50 * 1024 * 1024);
    expect(stdoutCut.originalBytes - stdoutCut.keptBytes).toBe(stdoutCut.cutBytes);
    // the tail kept the fault the classifier read
    const quotaLine = String((failover?.evidence as string[] | undefined)?.[0]);
    const tailKept =
      stdout.includes(quotaLine) ||
      readFileSync(join(failed, 'stderr.raw'), 'utf8').includes(quotaLine);
    expect(tailKept).toBe(true);
    // the whole folder, locator and prompt included, stays near the cap
    const folder = readdirSync(failed).reduce((n, f) => n + statSync(join(failed, f)).size, 0);
    expect(folder).toBeLessThan(CAP + 256 * 1024);
  });

  it('switchyard clean --evidence-older-than prunes a failed attempt of an archived task; --dry-run only lists it', async () => {
    const { ws, failed } = await floodedRun();
    const id = failed.split('/').at(-1) as string;
    const dry = await cli([
      'clean',
      '--workspace',
      ws.dir,
      '--evidence-older-than',
      '0s',
      '--dry-run',
      '--json',
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout).evidence;
    expect(planned.pruned.map((p: { attempt: string }) => p.attempt)).toEqual([id]);
    expect(existsSync(join(failed, 'stdout.raw'))).toBe(true);

    const real = await cli(['clean', '--workspace', ws.dir, '--evidence-older-than', '0s']);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain(`pruned evidence of ${id} (g/t`);
    expect(readdirSync(failed).sort()).toEqual(['evidence-pruned.json', 'locator.json']);

    const bad = await cli(['clean', '--workspace', ws.dir, '--evidence-max-size', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--evidence-max-size lots: not a size');
  });
});
