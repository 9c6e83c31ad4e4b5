import { lstatSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace } from '../dispatcher/helpers.js';
import { gitWorkspace } from '../isolation/git-workspace.js';

const KEY = 'sk-ant-api03-Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNmZx9';
// Neither the name nor the value looks like a credential: hidden because the catalog expands it.
const OPAQUE = 'plainvalue-4815162342';

/** Every file and folder below `dir`, with its mode. */
function entriesBelow(dir: string): { path: string; dir: boolean; mode: number }[] {
  const out: { path: string; dir: boolean; mode: number }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const mode = lstatSync(p).mode & 0o777;
    if (e.isDirectory()) out.push({ path: p, dir: true, mode }, ...entriesBelow(p));
    else if (e.isFile()) out.push({ path: p, dir: false, mode });
  }
  return out;
}

describe('an agent that prints its environment leaks no credential', { timeout: 180_000 }, () => {
  it('credential-looking values and catalog ${VAR}s are redacted from captures, evidence, state, events, logs and the next prompt; files 0600 in 0700 folders', async () => {
    const ws = new Workspace();
    const dump = [
      { printEnv: 'ANTHROPIC_API_KEY' },
      { printEnv: 'DEPLOY_SETTING', stream: 'stderr' },
    ];
    ws.catalog({
      a: {
        scenario: {
          cases: [
            { when: { role: 'review' }, steps: [...dump, { review: 'Verdict: APPROVED\n' }] },
            // The first worker attempt fails with the value as its last line (its evidence).
            { when: { role: 'worker', attempt: 1 }, steps: [...dump, { exit: 1 }] },
          ],
          steps: [...dump, { fillChecklist: true }],
        },
      },
    });
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.targets.a.runtime.environment = { DEPLOY_SETTING: '${SY_DEPLOY_OPAQUE}' };
    writeFileSync(ws.catalogFile, JSON.stringify(catalog, null, 2));
    ws.task('g/t', { files: ['src/t.ts'] });
    const result = await ws.run([], {
      env: { ANTHROPIC_API_KEY: KEY, SY_DEPLOY_OPAQUE: OPAQUE },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(result.stdout + result.stderr).not.toContain(OPAQUE);

    const entries = entriesBelow(ws.path('agent-task'));
    const files = entries.filter((e) => !e.dir);
    for (const f of files) {
      const text = readFileSync(f.path, 'utf8');
      expect(text.includes(KEY), `${f.path} holds the key`).toBe(false);
      expect(text.includes(OPAQUE), `${f.path} holds the catalog value`).toBe(false);
    }
    // The failed attempt keeps its raw captures, masked in place.
    const [failed] = ws.attempts();
    expect(failed).toBeDefined();
    const dir = ws.path('agent-task/.switchyard/attempts', failed as string);
    expect(readFileSync(join(dir, 'stdout.raw'), 'utf8')).toContain(
      'ANTHROPIC_API_KEY=[redacted:ANTHROPIC_API_KEY]',
    );
    // Same length as the value (stream.log frames point into the capture): the label fits or not.
    expect(readFileSync(join(dir, 'stderr.raw'), 'utf8')).toMatch(
      /^DEPLOY_SETTING=\[redacted\]\*{11}$/m,
    );
    const finished = ws.events().find((e) => e.type === 'attempt.finished');
    // The runner masks captures as it reads them: the classifier quotes the masked line.
    expect(finished?.evidence).toEqual(['DEPLOY_SETTING=[redacted]***********']);

    // Owner-only: everything the dispatcher keeps below .switchyard.
    for (const e of entries.filter((x) => x.path.includes('/.switchyard')))
      expect(e.mode & 0o077, `${e.path} is ${e.mode.toString(8)}`).toBe(0);
  });
});

describe('what the dispatcher writes from agent text is redacted; every folder it makes is 0700', {
  timeout: 240_000,
}, () => {
  it('review findings quoting a credential reach no file (complete.log, packets, notes, work log, worktrees), under worktree isolation', async () => {
    const ws = gitWorkspace({ 'src/t.ts': 'export const t = 1;\n' });
    const plan2 = `## Modified Files Summary\n\n- src/t.ts\n\n## Implementation Checklist\n\n- [ ] rotate ${KEY}\n`;
    ws.catalog({
      a: {
        scenario: {
          cases: [
            {
              when: { role: 'review', attempt: 1 },
              steps: [
                {
                  review: `Verdict: CHANGES_REQUESTED\n\n- [MODERATE] the key ${KEY} is hard-coded\n`,
                  nextPlan: plan2,
                },
              ],
            },
            {
              when: { role: 'review' },
              steps: [{ review: `Verdict: APPROVED\n\n- [MINOR] say when ${KEY} rotates\n` }],
            },
          ],
          steps: [
            { write: { path: 'src/t.ts', content: 'export const t = 2;\n' } },
            { fillChecklist: true },
          ],
        },
      },
    });
    ws.task('g/t', { files: ['src/t.ts'] });
    const cache = mkdtempSync(join(tmpdir(), 'sy-cache-'));
    const result = await ws.run([], { env: { ANTHROPIC_API_KEY: KEY, XDG_CACHE_HOME: cache } });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const complete = ws.read('agent-task', 'archive', 'g', 't', 'complete.log');
    expect(complete).toContain('[MINOR] say when [redacted:ANTHROPIC_API_KEY] rotates');

    const entries = [...entriesBelow(ws.path('agent-task')), ...entriesBelow(cache)];
    for (const f of entries.filter((e) => !e.dir))
      expect(readFileSync(f.path, 'utf8').includes(KEY), `${f.path} holds the key`).toBe(false);
    const open = entries.filter(
      (e) =>
        e.dir && (e.path.includes('/.switchyard') || e.path.startsWith(cache)) && e.mode & 0o077,
    );
    expect(open.map((e) => `${e.path} ${e.mode.toString(8)}`)).toEqual([]);
  });
});
