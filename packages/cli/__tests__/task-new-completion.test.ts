import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newTaskState, stateDir } from '@switchyard/core';
import { openStateStore, SessionStore } from '@switchyard/store-fs';
import { parsePlanFile } from '@switchyard/tasks';
import { describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace } from './dry-run-helpers.js';

describe('switchyard task new', { timeout: 60_000 }, () => {
  it('scaffolds a PLAN.md the real parser accepts, at the workspace root found from a subfolder', async () => {
    const { ws } = makeWorkspace();
    mkdirSync(join(ws, '.git'));
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'README.md'), '');
    const first = await runCli(
      ['task', 'new', 'api/add-flag', '--files', 'flag.ts', '../README.md'],
      {
        cwd: join(ws, 'src'),
      },
    );
    expect(first.exitCode, first.stderr).toBe(0);
    const second = await runCli(
      [
        'task',
        'new',
        'api/docs',
        '--files',
        'README.md',
        '--depends-on',
        'add-flag',
        '--route',
        'cloud-G08',
      ],
      { cwd: ws },
    );
    expect(second.exitCode, second.stderr).toBe(0);
    const file = join(ws, 'agent-task', 'api', 'docs', 'PLAN.md');
    const plan = parsePlanFile(file, { workspace: ws });
    expect(plan.problems.filter((p) => p.severity !== 'warning')).toEqual([]);
    expect(plan.frontMatter.route).toBe('cloud-G08');
    const firstPlan = parsePlanFile(join(ws, 'agent-task', 'api', 'add-flag', 'PLAN.md'), {
      workspace: ws,
    });
    expect(firstPlan.problems.filter((p) => p.severity !== 'warning')).toEqual([]);
    expect(readFileSync(join(ws, 'agent-task', 'api', 'add-flag', 'PLAN.md'), 'utf8')).toContain(
      '- src/flag.ts\n- README.md\n',
    );
    const check = await runCli(['validate-plan', file], { cwd: ws });
    expect(check.exitCode, check.stderr).toBe(0);
    expect(check.stdout).toContain('depends on  add-flag');
    expect(existsSync(join(ws, 'src', 'agent-task'))).toBe(false);
  });

  it('refuses a bad id, a missing write set and an existing task (exit 2)', async () => {
    const { ws } = makeWorkspace();
    mkdirSync(join(ws, 'agent-task'));
    for (const args of [
      ['task', 'new', 'no-group', '--files', 'a'],
      ['task', 'new', 'g/t'],
      ['task', 'new', 'g/t', '--files', 'a', '--route', 'G01'],
    ]) {
      const r = await runCli(args, { cwd: ws });
      expect(r.exitCode, args.join(' ')).toBe(2);
    }
    expect((await runCli(['task', 'new', 'g/t', '--files', 'a'], { cwd: ws })).exitCode).toBe(0);
    const again = await runCli(['task', 'new', 'g/t', '--files', 'a'], { cwd: ws });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('already exists');
  });
});

describe('switchyard completion', { timeout: 120_000 }, () => {
  it('completes from the command tree and the workspace (tab protocol), and prints the scripts', async () => {
    const { ws } = makeWorkspace();
    for (const task of ['api/add-flag', 'docs/readme'])
      mkdirSync(join(ws, 'agent-task', task), { recursive: true });
    mkdirSync(join(ws, 'agent-task', 'retros'));
    writeFileSync(join(ws, 'agent-task', 'retros', '2026-12-01-r.md'), '# Retro\n');
    const state = newTaskState('api/add-flag');
    state.blocked = { reason: 'x', stage: 'gate', evidence: [], at: new Date().toISOString() };
    await openStateStore(stateDir(ws)).write(state);
    mkdirSync(join(new SessionStore(stateDir(ws)).root, 's-20261201T020000Z-1a2b'), {
      recursive: true,
    });
    const complete = async (...words: string[]) => {
      const r = await runCli(['complete', '--', ...words], { cwd: ws });
      expect(r.exitCode, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      return { values: lines.slice(0, -1).map((l) => l.split('\t')[0]), directive: lines.at(-1) };
    };
    expect((await complete('cat')).values).toEqual(['catalog']);
    expect((await complete('catalog', 'in')).values).toEqual(['init']);
    expect((await complete('run', '--dry')).values).toEqual(['--dry-run']);
    // Completion goes on after an option's value.
    expect((await complete('run', '--task-group', 'api', '--dry')).values).toEqual(['--dry-run']);
    // The workspace's own ids: groups (not the retrospectives), blocked tasks, tasks, sessions.
    expect((await complete('run', '--task-group', '')).values).toEqual(['api', 'docs']);
    expect((await complete('resolve', '')).values).toEqual(['api/add-flag']);
    expect((await complete('task', 'new', 'x/y', '--depends-on', '')).values).toEqual([
      'api/add-flag',
      'docs/readme',
    ]);
    expect((await complete('resume', '')).values).toEqual(['s-20261201T020000Z-1a2b']);
    // Catalog targets (the bundled catalog here), after --with and after `run plan.yaml with`.
    const targets = (await complete('run', '--with', '')).values;
    expect(targets.length).toBeGreaterThan(1);
    expect((await complete('run', 'plan.yaml', 'with', '')).values).toEqual(targets);
    // Paths are left to the shell: folders for --workspace, YAML files for a plan.
    expect(await complete('status', '--workspace', '')).toEqual({ values: [], directive: ':16' });
    expect((await complete('run', '')).directive).toBe(':8');

    const bash = (await runCli(['completion', 'bash'])).stdout;
    expect(bash).toContain('complete -F __switchyard_complete switchyard');
    expect(bash).toContain('switchyard complete --');
    expect((await runCli(['completion', 'zsh'])).stdout).toContain(
      'compdef _switchyard switchyard',
    );
    expect((await runCli(['completion', 'fish'])).stdout).toContain('complete -c switchyard');
    expect((await runCli(['completion', 'tcsh'])).exitCode).toBe(2);
  });
});
