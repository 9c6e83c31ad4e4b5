import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../engine/cli-in-process.js';
import { runEngine } from '../engine/harness.js';
import { Workspace } from './helpers.js';

const approve = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n' }],
};

const redTeamApprove = { ...approve, when: { role: 'redteam' } };

/** A PLAN.md with the given front matter lines (no route unless given). */
function plan(ws: Workspace, id: string, frontMatter: string[], file: string): void {
  const dir = ws.path('agent-task', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    `${dir}/PLAN.md`,
    `---\n${frontMatter.join('\n')}\n---\n# ${id}\n\n## Modified Files Summary\n\n- ${file}\n\n## Implementation Checklist\n\n- [ ] do it\n`,
  );
}

// Awaited commands run the CLI's own entry in this process (test/engine/cli-in-process.ts); git
// and the agents are real processes.
describe('routing by complexity and risk (in process)', { timeout: 60_000 }, () => {
  it('a plan with `complexity:` and no route lands on the mapped route; the dry run says why', async () => {
    const ws = new Workspace();
    ws.config({
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      routing: { complexity: { complex: 'cloud-G02' } },
    });
    ws.catalog({
      // Another agent family than `deep`: g/hard's `risk: high` red-team review runs on it.
      fast: {
        agent: 'codex',
        scenario: { cases: [approve, redTeamApprove], steps: [{ fillChecklist: true }] },
      },
      deep: { scenario: { cases: [approve], steps: [{ fillChecklist: true }] } },
    });
    // Every route runs `fast` except cloud-G02, whose only worker candidate is `deep`.
    const catalog = JSON.parse(readFileSync(ws.catalogFile, 'utf8'));
    catalog.routes.worker['cloud-G02'] = { candidates: ['deep'] };
    for (const route of Object.keys(catalog.routes.worker))
      if (route !== 'cloud-G02') catalog.routes.worker[route] = { candidates: ['fast'] };
    writeFileSync(ws.catalogFile, JSON.stringify(catalog));
    plan(ws, 'g/hard', ['complexity: complex', 'risk: high'], 'src/hard.ts');
    plan(ws, 'g/pinned', ['route: cloud-G07', 'complexity: complex'], 'src/pinned.ts');

    const dry = await runInProcess(ws, ['--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const tasks = JSON.parse(dry.stdout).tasks as Array<Record<string, any>>;
    const hard = tasks.find((t) => t.id === 'g/hard')!;
    expect(hard).toMatchObject({
      route: 'cloud-G02',
      review: 'red-team',
      route_reason:
        'complexity: complex → cloud-G02 (routing.complexity.complex); risk: high → review: red-team (routing.risk.high.review)',
    });
    expect(hard.stages.worker.selected).toBe('deep');
    expect(tasks.find((t) => t.id === 'g/pinned')).toMatchObject({
      route: 'cloud-G07',
      route_reason: 'route: cloud-G07 in PLAN.md',
    });
    const text = await runInProcess(ws, ['--dry-run']);
    expect(text.stdout).toContain('route       complexity: complex → cloud-G02');

    const result = await runEngine(ws);
    expect(result.code, result.stdout).toBe(0);
    const workers = result.events
      .filter((e) => e.type === 'stage.decided' && e.stage === 'worker')
      .map((e) => `${e.task} ${e.target}`)
      .sort();
    expect(workers).toEqual(['g/hard deep', 'g/pinned fast']);
    // `risk: high` → review: red-team, on the review candidate of another agent family.
    const redTeam = result.events
      .filter((e) => e.type === 'attempt.started' && e.role === 'redteam')
      .map((e) => `${e.task} ${e.target}`);
    expect(redTeam).toEqual(['g/hard fast']);
  });
});
