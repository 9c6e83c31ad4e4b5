import { describe, expect, it } from 'vitest';
import { cli, runInProcess } from '../engine/cli-in-process.js';

import { git, gitWorkspace, sourceStatus, taskCommits } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts) with
// real git and agents as processes; a run the test works beside stays spawned.
describe('provider faults under worktree isolation (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('prose about quota on a failing exit stays on its target; exhaustion and bad credentials block with readable evidence', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    ws.catalog({
      first: {
        scenario: {
          cases: [
            approve,
            {
              when: { role: 'worker', task: 'g/prose', attempt: 1 },
              steps: [
                { say: 'The quota tests fail with 429: rate limit exceeded, quota exhausted.' },
                { print: 'FAIL test/rate-limit.test.js > quota is enforced', stream: 'stderr' },
                { exit: 1 },
              ],
            },
            {
              when: { role: 'worker', task: 'g/prose' },
              steps: [{ write: { path: 'src/p.js', content: 'p\n' } }, { fillChecklist: true }],
            },
            {
              when: { role: 'worker', task: 'g/exhaust' },
              steps: [{ fault: 'model-unavailable' }],
            },
            { when: { role: 'worker', task: 'g/auth' }, steps: [{ fault: 'auth' }] },
          ],
        },
      },
      second: {
        scenario: {
          cases: [
            approve,
            { when: { role: 'worker', task: 'g/exhaust' }, steps: [{ fault: 'context-limit' }] },
          ],
          steps: [{ fault: 'auth' }],
        },
      },
    });
    ws.task('g/prose', { files: ['src/p.js'] });
    ws.task('g/exhaust', { files: ['src/e.js'] });
    ws.task('g/auth', { files: ['src/u.js'] });
    const result = await runInProcess(ws, ['--max-parallel', '3']);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const events = ws.events();
    const runs = (task: string) =>
      events
        .filter((e) => e.type === 'attempt.finished' && e.task === task && e.role === 'worker')
        .map((e) => `${e.target}:${e.result}`);
    // Prose is not failover evidence: the retry stays on `first`, and the task lands.
    expect(runs('g/prose')).toEqual(['first:generic-error', 'first:success']);
    expect(taskCommits(ws).map((c) => c.task)).toEqual(['g/prose']);
    // Every candidate used: one failover, no wrap-around back to `first`, then blocked.
    const exhaust = runs('g/exhaust');
    expect(exhaust[0]).toBe('first:model-unavailable');
    expect(exhaust.slice(1).every((r) => r === 'second:context-limit')).toBe(true);
    expect(
      events.filter((e) => e.type === 'target.failover' && e.task === 'g/exhaust'),
    ).toHaveLength(1);
    // Bad credentials: at most one retry, and the reason says so.
    expect(runs('g/auth').length).toBeLessThanOrEqual(2);
    const blocked = events.filter((e) => e.type === 'task.blocked');
    expect(blocked.map((e) => e.task).sort()).toEqual(['g/auth', 'g/exhaust']);
    expect(blocked.find((e) => e.task === 'g/auth')?.reason).toMatch(
      /^authentication failed for target first: Invalid API key/,
    );
    // Blocked worktrees stay as evidence; the source is clean.
    expect(sourceStatus(ws)).toBe('');
    expect(
      git(ws.dir, 'branch', '--list', 'switchyard/*')
        .split('\n')
        .map((b) => b.trim()),
    ).toEqual(['+ switchyard/g/auth', '+ switchyard/g/exhaust']);
    // People read messages, not raw JSON event lines cut at a width.
    const status = await cli(['status', '--workspace', ws.dir]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/g\/auth +\[worker\] authentication failed for target first/);
    expect(status.stdout).toMatch(/^ +Invalid API key/m);
    expect(status.stdout).toMatch(/^ +Prompt is too long/m);
    expect(status.stdout).toMatch(
      /The last evidence was: "Invalid API key · Fix external API key"/,
    );
    expect(status.stdout).not.toContain('{"duration_api_ms"');
    // Machines keep the raw evidence.
    const json = JSON.parse((await cli(['status', '--workspace', ws.dir, '--json'])).stdout);
    expect(json.blocked.find((b: { task: string }) => b.task === 'g/auth').evidence[0]).toContain(
      '"api_error_status":401',
    );
  });
});
