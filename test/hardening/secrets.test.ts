import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { runInProcess } from '../engine/cli-in-process.js';

const KEY = 'sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm';

/** Every file below `dir` (path and content). */
function filesBelow(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push({ path: p, text: readFileSync(p, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

// `switchyard run` in this process (test/engine/cli-in-process.ts), its env set as a spawned CLI's;
// the agents are processes.
describe('a gate that prints the environment does not leak credentials', {
  timeout: 180_000,
}, () => {
  it('the key is redacted from the gate log, state, events, work log and the next prompt', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { steps: [{ fillChecklist: true }] } } });
    // `env` prints the environment (ANTHROPIC_API_KEY included) and the assertion fails, so
    // the output goes back to the worker as a correction until the gate budget blocks the task.
    ws.task('g/t', {
      files: ['src/t.ts'],
      done: { command: '/usr/bin/env', assertion: 'stdout contains "never printed"' },
    });
    const result = await runInProcess(ws, [], { env: { ANTHROPIC_API_KEY: KEY } });
    expect(result.code, result.stderr).toBe(3);
    const files = filesBelow(ws.path('agent-task'));
    const gateLogs = files.filter((f) => f.path.includes('/gates/'));
    expect(gateLogs.length).toBeGreaterThan(0);
    expect(gateLogs[0]?.text).toContain('ANTHROPIC_API_KEY=[redacted:ANTHROPIC_API_KEY]');
    const prompts = files.filter((f) => f.path.endsWith('prompt.md'));
    expect(prompts.some((f) => f.text.includes('[redacted:ANTHROPIC_API_KEY]'))).toBe(true);
    for (const f of files) expect(f.text.includes(KEY), `${f.path} holds the key`).toBe(false);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    // Evidence and state are owner-only.
    for (const f of [...gateLogs, ...prompts]) expect(statSync(f.path).mode & 0o077).toBe(0);
  });
});
