import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Capture, EXPECTED_CLASS, FIXTURES_DIR } from '../agent-contract/fixtures.js';
import { runEngine } from '../engine/harness.js';
import { Workspace } from './helpers.js';

/**
 * Captured real-CLI failures replayed through a real `switchyard run` (issue 12, "Checked
 * by"): target `a` is the fake agent printing a capture's stdout and stderr line for line and
 * exiting with its code; target `b` does the work. A provider fault must move the stage to
 * the next candidate at once; any other failure must stay on the same target (retried after
 * backoff), and a repeated authentication failure blocks the task.
 */
function capture(path: string): Capture {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, path), 'utf8')) as Capture;
}

const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
};

/** A workspace whose worker route is [a (replays `c`), b (succeeds)]; reviews go to b. */
function replayWorkspace(c: Capture): Workspace {
  const ws = new Workspace();
  const lines = (text: string, stream: 'stdout' | 'stderr') =>
    text === ''
      ? []
      : text
          .replace(/\n$/, '')
          .split('\n')
          .map((print) => ({ print, stream }));
  ws.catalog(
    {
      a: {
        agent: c.agent,
        scenario: {
          steps: [...lines(c.stdout, 'stdout'), ...lines(c.stderr, 'stderr'), { exit: c.exitCode }],
        },
      },
      b: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } },
    },
    ['a', 'b'],
    ['b'],
  );
  // The capture's output mode decides how the runner reads it (text or JSONL).
  const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
  catalog.targets.a.runtime.output_format = c.mode;
  writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 2));
  ws.task('g/one', { files: ['src/one.txt'] });
  return ws;
}

const FAILOVERS = [
  'claude-code/2.1.197/jsonl.rate-limit.json',
  'qwen-code/0.15.10/jsonl.quota.json',
  'gemini-cli/0.61.0/text.server-error.json',
  'codex/0.171.0/jsonl.unknown-model.json',
  'gemini-cli/0.61.0/jsonl.prompt-too-long.json',
];

describe('captured failures replayed through switchyard run (in process)', {
  timeout: 60_000,
}, () => {
  it.each(FAILOVERS)(
    '%s: a provider fault fails over to the next candidate at once',
    async (path) => {
      const c = capture(path);
      const expected = EXPECTED_CLASS[c.fault]!;
      const ws = replayWorkspace(c);
      const result = await runEngine(ws);
      expect(result.code, result.stdout).toBe(0);
      const events = result.events;
      const finished = events.filter((e) => e.type === 'attempt.finished' && e.role === 'worker');
      expect(finished.map((e) => [e.target, e.result])).toEqual([
        ['a', expected],
        ['b', 'success'],
      ]);
      expect(events.filter((e) => e.type === 'target.failover')).toEqual([
        expect.objectContaining({ from: 'a', to: 'b', class: expected, stage: 'worker' }),
      ]);
      expect(events.some((e) => e.type === 'attempt.retry-scheduled')).toBe(false);
      expect(events.some((e) => e.type === 'task.archived' && e.task === 'g/one')).toBe(true);
    },
  );

  it('claude-code/2.1.332/text.unauthorized.json: not a provider fault: the same target is retried, and a repeated authentication failure blocks the task', async () => {
    const c = capture('claude-code/2.1.332/text.unauthorized.json');
    expect(EXPECTED_CLASS[c.fault]).toBe('generic-error');
    const ws = replayWorkspace(c);
    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(3);
    const events = result.events;
    const finished = events.filter((e) => e.type === 'attempt.finished' && e.role === 'worker');
    expect(finished.map((e) => [e.target, e.result])).toEqual([
      ['a', 'generic-error'],
      ['a', 'generic-error'],
    ]);
    expect(events.some((e) => e.type === 'target.failover')).toBe(false);
    expect(events.filter((e) => e.type === 'attempt.retry-scheduled')).toEqual([
      expect.objectContaining({ target: 'a' }),
    ]);
    expect(events.filter((e) => e.type === 'task.blocked')).toEqual([
      expect.objectContaining({
        task: 'g/one',
        reason: expect.stringMatching(/^authentication failed for target a: Invalid API key/),
      }),
    ]);
  });
});
