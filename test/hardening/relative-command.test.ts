import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_AGENT, runCli, Workspace } from '../dispatcher/helpers.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
const finishWork = { steps: [{ fillChecklist: true }] };

/**
 * Moves the workspace's catalog into its own folder with `./bin/agent` (a relative path) as
 * every target's command; `bin/agent` starts the fake agent. Returns the new catalog file.
 */
function catalogWithRelativeCommand(ws: Workspace): string {
  const folder = mkdtempSync(join(tmpdir(), 'sy-catalog-'));
  mkdirSync(join(folder, 'bin'));
  const agent = join(folder, 'bin', 'agent');
  writeFileSync(agent, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`);
  chmodSync(agent, 0o755);
  const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
  for (const target of Object.values<{ runtime: { command: string[] } }>(catalog.targets)) {
    // [node, fake-agent-bin.js, ...args] → ['./bin/agent', ...args]
    target.runtime.command = ['./bin/agent', ...target.runtime.command.slice(2)];
  }
  const file = join(folder, 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog, null, 2));
  return file;
}

describe('a relative catalog command resolves from the catalog file folder everywhere', {
  timeout: 120_000,
}, () => {
  it('catalog validate, run from another folder, finds ./bin/agent next to the catalog', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], ...finishWork } } });
    const file = catalogWithRelativeCommand(ws);
    const elsewhere = mkdtempSync(join(tmpdir(), 'sy-cwd-'));
    const result = await runCli(['catalog', 'validate', '--execution-catalog', file, '--json'], {
      cwd: elsewhere,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true, commandCheck: 'checked' });

    // and a command missing next to the catalog is reported there, with the JSON path
    const missing = JSON.parse(readFileSync(file, 'utf8'));
    missing.targets.a.runtime.command[0] = './bin/absent';
    writeFileSync(file, JSON.stringify(missing));
    const refused = await runCli(['catalog', 'validate', '--execution-catalog', file, '--json'], {
      cwd: elsewhere,
    });
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).problems[0]).toMatchObject({
      code: 'SY_CATALOG_NOT_EXECUTABLE',
      path: 'targets.a.runtime.command.0',
    });
  });

  it('run spawns ./bin/agent from the catalog folder, not from the workspace or the task worktree', async () => {
    const ws = new Workspace();
    ws.catalog({ a: { scenario: { cases: [approve], ...finishWork } } });
    const file = catalogWithRelativeCommand(ws);
    ws.task('g/t', { files: ['src/t.ts'] });
    const result = await runCli(['run', '--workspace', ws.dir, '--execution-catalog', file]);
    expect(result.stderr).not.toContain('not installed');
    expect(result.code).toBe(0);
    expect(ws.exists('agent-task', 'archive', 'g', 't', 'complete.log')).toBe(true);
    const started = ws.events().filter((e) => e.type === 'attempt.started');
    expect(started.length).toBeGreaterThanOrEqual(2);
  });
});
