import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runInProcess } from '../engine/cli-in-process.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const finishWork = { steps: [{ fillChecklist: true }] };
const ARGV_SAFE = 96 * 1024;

/** 250 write-set entries of ~900 characters: the prompt lists 200 of them, ~180 KiB. */
function longWriteSet(): string[] {
  return Array.from({ length: 250 }, (_, i) => {
    const dirs = Array.from({ length: 7 }, (_, d) => `d${d}-${'x'.repeat(120)}`);
    return `src/${i}/${dirs.join('/')}/file-${i}.ts`;
  });
}

interface PromptLogLine {
  via: 'argv' | 'stdin';
  bytes: number;
  sha256: string;
}

function promptLog(file: string): PromptLogLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The prompt.md of the task's first worker attempt. */
function workerPrompt(ws: Workspace): string {
  const dir = ws.path('agent-task', '.switchyard', 'attempts');
  const worker = readdirSync(dir).find((a) => a.includes('.worker.'));
  if (!worker) throw new Error('no worker attempt');
  return readFileSync(join(dir, worker, 'prompt.md'), 'utf8');
}

// `switchyard run` in this process (test/engine/cli-in-process.ts), its env set as a spawned CLI's;
// the agents are processes.
describe('a prompt too long for argv goes through stdin, or is refused before spawning', {
  timeout: 180_000,
}, () => {
  for (const agent of ['claude-code', 'codex'] as const) {
    it(`${agent}: a ~180 KiB prompt reaches the agent whole on stdin, and the task finishes`, async () => {
      const ws = new Workspace();
      ws.catalog({ a: { agent, scenario: { cases: [approve], ...finishWork } } });
      ws.task('g/t', { files: longWriteSet() });
      const log = join(mkdtempSync(join(tmpdir(), 'sy-prompt-')), 'prompts.jsonl');
      const result = await runInProcess(ws, [], { env: { SWITCHYARD_FAKE_AGENT_PROMPT_LOG: log } });
      expect(result.stderr).not.toContain('E2BIG');
      expect(result.code).toBe(0);
      const prompt = workerPrompt(ws);
      expect(Buffer.byteLength(prompt)).toBeGreaterThan(ARGV_SAFE);
      const worker = promptLog(log).find((l) => l.bytes > ARGV_SAFE);
      expect(worker).toEqual({
        via: 'stdin',
        bytes: Buffer.byteLength(prompt),
        sha256: createHash('sha256').update(prompt).digest('hex'),
        tail: prompt.slice(-200),
      });
      expect(ws.exists('agent-task', 'archive', 'g', 't', 'complete.log')).toBe(true);
    });
  }

  it('an agent whose CLI takes prompts only in argv is blocked at once with SY_PROMPT_TOO_LONG, nothing spawned', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], ...finishWork } } });
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.a.agent = 'copilot';
    writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 2));
    ws.task('g/t', { files: longWriteSet() });
    const log = join(mkdtempSync(join(tmpdir(), 'sy-prompt-')), 'prompts.jsonl');
    const result = await runInProcess(ws, [], { env: { SWITCHYARD_FAKE_AGENT_PROMPT_LOG: log } });
    expect(result.code).toBe(3);
    expect(promptLog(log)).toEqual([]);
    const events = ws.events();
    expect(events.filter((e) => e.type === 'attempt.started')).toEqual([]);
    expect(events.filter((e) => e.type === 'attempt.retry-scheduled')).toEqual([]);
    const blocked = events.find((e) => e.type === 'task.blocked');
    expect(blocked?.reason).toMatch(/SY_PROMPT_TOO_LONG/);
    expect(blocked?.reason).toMatch(/agent "copilot" declares no other way/);
    expect(blocked?.evidence).toEqual([
      expect.stringMatching(/^SY_PROMPT_TOO_LONG: the prompt \(\d+ KiB\)/),
    ]);
  });
});
