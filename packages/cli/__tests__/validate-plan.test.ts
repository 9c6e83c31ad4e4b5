import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace, plan, SYSTEM_PATH } from './dry-run-helpers.js';

const roots: string[] = [];
const workspace = () => {
  const w = makeWorkspace();
  roots.push(w.root);
  return w;
};
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('switchyard validate-plan', { timeout: 60_000 }, () => {
  it('accepts a valid plan without any catalog and summarizes it', async () => {
    const { ws, write } = workspace();
    write('agent-task/api/base/PLAN.md', plan('local-G01', ['src/base.ts']));
    write(
      'agent-task/api/flag/PLAN.md',
      plan('cloud-G02', ['`src/flag.ts` — new', 'src/cli.ts: wire it'], { deps: ['base'] }),
    );
    const r = await runCli(['validate-plan', 'agent-task/api/flag/PLAN.md'], {
      cwd: ws,
      env: { ...SYSTEM_PATH, AGENT_TASK_EXECUTION_CATALOG: '/nonexistent/catalog.json' },
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('follows the task contract');
    expect(r.stdout).toContain('2 files: src/flag.ts, src/cli.ts');
  });

  it('exits 2 listing every problem with file:line', async () => {
    const { ws, write } = workspace();
    write(
      'agent-task/g/t/PLAN.md',
      '---\nroute: nowhere\nextra: 1\ndepends_on: [ghost]\n---\n## Modified Files Summary\n\n- /etc/hosts\n- src/**/*.ts\n- src/\n- ../out.ts\n- .git/config\n- agent-task/g/t/PLAN.md\n\n## Implementation Checklist\n\n- [ ] x\n',
    );
    const r = await runCli(['validate-plan', 'agent-task/g/t/PLAN.md'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('error'));
    const where = lines.map((l) => /PLAN\.md:(\d+)/.exec(l)?.[1]);
    expect(where).toEqual(['2', '3', '4', '8', '9', '10', '11', '12', '13']);
    expect(r.stderr).toMatch(/route "nowhere" is not a route id/);
    expect(r.stderr).toMatch(/no task g\/ghost/);
    expect(r.stderr).toMatch(/9 problems; nothing was run/);
  });

  it('refuses a plan that lies outside a task folder, as a run would not see it', async () => {
    const { ws, write } = workspace();
    write('agent-task/fix-bug/PLAN.md', plan('local-G01', ['src/a.ts']));
    write('agent-task/PLAN.md', plan('local-G01', ['src/b.ts']));
    write('agent-task/fix-bug/t/PLAN.md', plan('local-G01', ['src/c.ts']));
    for (const [file, where] of [
      ['agent-task/fix-bug/PLAN.md', 'agent-task/fix-bug/<task>/PLAN.md'],
      ['agent-task/PLAN.md', 'agent-task/<group>/<task>/PLAN.md'],
    ] as const) {
      const r = await runCli(['validate-plan', file], { cwd: ws, env: SYSTEM_PATH });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`${file}`);
      expect(r.stderr).toMatch(/SY_PLAN_INVALID.*not in a task folder/);
      expect(r.stderr).toContain(where);
    }
    // The same plan inside a task folder is valid.
    const ok = await runCli(['validate-plan', 'agent-task/fix-bug/t/PLAN.md'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(ok.exitCode).toBe(0);
  });

  it('refuses a write-set entry whose symlink leaves the workspace', async () => {
    const { root, ws, write } = workspace();
    write('outside.txt', '');
    write('../elsewhere/secret.ts', 'x');
    symlinkSync(join(root, 'elsewhere'), join(ws, 'linked'));
    write('agent-task/g/t/PLAN.md', plan('local-G01', ['linked/secret.ts']));
    const r = await runCli(['validate-plan', join(ws, 'agent-task/g/t/PLAN.md'), '--json'], {
      env: SYSTEM_PATH,
    });
    expect(r.exitCode).toBe(2);
    const doc = JSON.parse(r.stdout);
    expect(doc.valid).toBe(false);
    expect(doc.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 8,
        message: expect.stringMatching(/outside the workspace \(symlink\)/),
      }),
    ]);
  });

  it('prints a JSON document with the parsed contract', async () => {
    const { ws, write } = workspace();
    write(
      'agent-task/g/t/PLAN-2.md',
      '## Files to Modify\n\n- a.ts\n\n## Checklist\n\n- [x] done\n\n## Definition of Done\n\nCommand: `make check`\nAssertion: stdout contains "ok"\n',
    );
    const r = await runCli(['validate-plan', 'agent-task/g/t/PLAN-2.md', '--json'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      schema_version: 1,
      valid: true,
      plan: {
        route: null,
        write_set: [{ path: 'a.ts', line: 3 }],
        checklist: [{ checked: true, text: 'done', line: 7 }],
        definition_of_done: {
          argv: ['make', 'check'],
          assertion: { kind: 'stdout-contains', text: 'ok' },
        },
      },
    });
    expect(doc.problems.map((p: { severity: string }) => p.severity)).toEqual([
      'warning',
      'warning',
    ]);
  });

  it('is also reachable as run --validate-plan, and unknown flags exit 2', async () => {
    const { ws, write } = workspace();
    write('agent-task/g/t/PLAN.md', plan('local-G01', ['a.ts']));
    const ok = await runCli(['run', '--validate-plan', 'agent-task/g/t/PLAN.md'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain('follows the task contract');
    const bad = await runCli(['validate-plan', 'agent-task/g/t/PLAN.md', '--frobnicate'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/unknown option/);
    const missing = await runCli(['validate-plan', 'agent-task/g/none/PLAN.md'], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/cannot read plan: ENOENT/);
  });

  it('sends a YAML plan to the check that reads it instead of judging it as a PLAN.md', async () => {
    const { ws, write } = workspace();
    write('plan.yaml', 'version: 1\nkind: orchestrate-plan\n');
    for (const args of [
      ['validate-plan', 'plan.yaml'],
      ['run', '--validate-plan', 'plan.yaml'],
    ]) {
      const r = await runCli(args, { cwd: ws, env: SYSTEM_PATH });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('plan.yaml is a YAML plan; validate-plan checks one PLAN.md');
      expect(r.stderr).toContain('`switchyard run plan.yaml --dry-run` checks the whole plan');
      expect(r.stderr).not.toContain('Modified Files Summary');
    }
  });
});
