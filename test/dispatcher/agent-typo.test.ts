import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../engine/cli-in-process.js';
import { Workspace } from './helpers.js';

/**
 * A catalog `agent` that looks like a misspelt known agent (issue 17: `agent: "claude"`) is
 * named, with the closest known agent, by the dry run and the run too (not only by
 * `catalog validate`); a name far from every known agent is taken as deliberate.
 */
const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
};

function workspace(agent: string): Workspace {
  const ws = new Workspace();
  ws.catalog({ a: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } } });
  const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
  catalog.targets.a.agent = agent;
  writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 2));
  ws.task('g/one', { files: ['src/one.txt'] });
  return ws;
}

const TYPO = 'target "a": agent "claude" is not a known agent; did you mean "claude-code"?';

// The CLI's commands run in this process (test/engine/cli-in-process.ts); the agents are processes.
describe('misspelt agent names', { timeout: 120_000 }, () => {
  it('the dry run and the run warn with the closest known agent, and still run', async () => {
    const ws = workspace('claude');
    const dry = await runInProcess(ws, ['--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ severity: 'warning', message: TYPO, path: 'targets.a.agent' }),
      ]),
    );
    const text = await runInProcess(ws, ['--dry-run']);
    expect(text.stdout + text.stderr).toContain(TYPO);
    const run = await runInProcess(ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(TYPO);
  });

  it('a name far from every known agent is not questioned', async () => {
    const ws = workspace('acme-agent');
    const dry = await runInProcess(ws, ['--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout + dry.stderr).not.toContain('is not a known agent');
  });
});
