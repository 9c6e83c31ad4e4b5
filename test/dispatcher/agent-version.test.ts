import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../engine/cli-in-process.js';
import { FAKE_AGENT, Workspace } from './helpers.js';

/**
 * The agent CLI's version (issue 12): asked once before the run (`<program> --version`),
 * recorded in every attempt's locator and evidence, and a warning in dry run and run when it
 * is outside the release lines the agent's classifiers were verified on. The fake agent,
 * installed as `claude` on PATH, stands in for Claude Code and answers `--version` with
 * SWITCHYARD_FAKE_AGENT_VERSION.
 */
const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
};
const WARNING = 'classifier rules were verified for claude-code 2.1.19x–2.1.33x; this is 2.2.0';

/** A workspace whose target runs `claude` (the fake agent under that name, on `PATH`). */
function workspace(): { ws: Workspace; PATH: string } {
  const ws = new Workspace();
  ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
  const bin = ws.path('.bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`,
  );
  chmodSync(join(bin, 'claude'), 0o755);
  const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
  const command: string[] = catalog.targets.a.runtime.command;
  catalog.targets.a.runtime.command = ['claude', ...command.slice(2)];
  writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 2));
  ws.task('g/one', { files: ['src/one.txt'] });
  return { ws, PATH: `${bin}:${process.env.PATH}` };
}

// The CLI's commands run in this process (test/engine/cli-in-process.ts) with the PATH that finds
// the fake agent as `claude`; the agents are processes.
describe('agent CLI versions', { timeout: 120_000 }, () => {
  it('warns in dry run and run on an unverified release line and records the version', async () => {
    const { ws, PATH } = workspace();
    const env = { SWITCHYARD_FAKE_AGENT_VERSION: '2.2.0', PATH };
    const dry = await runInProcess(ws, ['--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout + dry.stderr).toContain(WARNING);

    const run = await runInProcess(ws, [], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(WARNING);
    const attempts = ws.path('agent-task', '.switchyard', 'attempts');
    const dirs = readdirSync(attempts);
    expect(dirs.length).toBeGreaterThanOrEqual(2);
    for (const dir of dirs) {
      const locator = JSON.parse(readFileSync(join(attempts, dir, 'locator.json'), 'utf8'));
      expect(locator.agentVersion, dir).toBe('2.2.0');
    }
  });

  it('says nothing for a version on a verified line', async () => {
    const { ws, PATH } = workspace();
    const env = { SWITCHYARD_FAKE_AGENT_VERSION: '2.1.197', PATH };
    const dry = await runInProcess(ws, ['--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout + dry.stderr).not.toContain('classifier rules were verified');
    const run = await runInProcess(ws, [], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('classifier rules were verified');
  });
});
