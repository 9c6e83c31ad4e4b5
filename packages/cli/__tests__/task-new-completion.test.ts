import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePlanFile } from '@switchyard/core';
import { execa } from 'execa';
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

describe('switchyard completion', { timeout: 60_000 }, () => {
  it('bash completes commands and options from the real command tree', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const complete = async (...words: string[]) => {
      const r = await execa(
        'bash',
        [
          '-c',
          `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _switchyard; echo "\${COMPREPLY[@]}"`,
        ],
        { reject: false },
      );
      return r.stdout.trim().split(/\s+/);
    };
    expect(await complete('switchyard', 'cat')).toEqual(['catalog']);
    expect(await complete('switchyard', 'catalog', 'in')).toEqual(['init']);
    expect(await complete('switchyard', 'run', '--dry')).toEqual(['--dry-run']);
    expect(await complete('switchyard', 'task', 'new', '--dep')).toEqual(['--depends-on']);
  });

  it('zsh and fish scripts are printed; an unknown shell is exit 2', async () => {
    expect((await runCli(['completion', 'zsh'])).stdout).toContain('bashcompinit');
    const fish = (await runCli(['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c switchyard -n '__fish_use_subcommand' -a run");
    expect(fish).toContain("-n '__fish_seen_subcommand_from init' -l force");
    expect((await runCli(['completion', 'tcsh'])).exitCode).toBe(2);
  });
});
