import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace } from './dry-run-helpers.js';

describe('switchyard config', { timeout: 60_000 }, () => {
  it('prints every resolved value and where it came from (file, env, flag, default)', async () => {
    const { ws } = makeWorkspace();
    mkdirSync(join(ws, 'agent-task'));
    mkdirSync(join(ws, 'src'));
    writeFileSync(
      join(ws, 'switchyard.config.json'),
      '{ "retry": { "baseDelayMs": 10 }, "routing": { "complexity": { "routine": "cloud-G09" } } }',
    );
    const r = await runCli(['config', '--max-parallel', '2'], {
      cwd: join(ws, 'src'),
      env: { AGENT_TASK_EXECUTION_CATALOG: 'team.json' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`config file ${join(ws, 'switchyard.config.json')}`);
    expect(r.stdout).toContain('retry.baseDelayMs = 10 (switchyard.config.json)');
    expect(r.stdout).toContain('retry.maxDelayMs = 300000 (default)');
    expect(r.stdout).toContain('maxParallel = 2 (flag --max-parallel)');
    expect(r.stdout).toContain('executionCatalog = "team.json" (env AGENT_TASK_EXECUTION_CATALOG)');
    // Every section, with its source down to each value.
    expect(r.stdout).toContain('routing.complexity.routine = "cloud-G09" (switchyard.config.json)');
    expect(r.stdout).toContain('routing.complexity.standard = "cloud-G04" (default)');
    expect(r.stdout).toContain('routing.risk.high.review = "red-team" (default)');
    expect(r.stdout).toContain('notify = null (default)');
    expect(r.stdout).toContain('corrections.maxRepeats = 3 (default)');
    expect(r.stdout).toContain('gates = [] (default)');
    const json = await runCli(['config', '--json'], { cwd: ws });
    const doc = JSON.parse(json.stdout);
    expect(doc.values).toContainEqual({
      key: 'retry.baseDelayMs',
      value: 10,
      from: 'file',
      source: 'switchyard.config.json',
    });
  });

  it('a misspelt key: did you mean, said once (also by the dry run, which reads the config twice)', async () => {
    const { ws } = makeWorkspace();
    mkdirSync(join(ws, 'agent-task'));
    writeFileSync(join(ws, 'switchyard.config.json'), '{ "maxParalel": 2 }');
    for (const args of [['config'], ['run', '--dry-run']]) {
      const r = await runCli(args, { cwd: ws });
      expect(r.exitCode, args.join(' ')).toBe(2);
      const out = `${r.stdout}${r.stderr}`;
      expect(out.match(/unknown key "maxParalel"/g), args.join(' ')).toHaveLength(1);
      // more than 20 keys: the hint names where they are all described instead of listing them
      expect(out).toContain(
        'hint: did you mean "maxParallel"? rename it; every key: the project config table',
      );
      expect(out).not.toContain('catalog schema');
    }
  });

  it('a bad value is printed at its file and line with the value and the hint, and --json carries the same', async () => {
    const { ws } = makeWorkspace();
    mkdirSync(join(ws, 'agent-task'));
    const file = join(ws, 'switchyard.config.yaml');
    writeFileSync(file, 'maxParallel: 2\nsandbox:\n  mode: bwrap\n  network: maybe\n');
    const expected = {
      code: 'SY_CONFIG_INVALID',
      file,
      line: 4,
      column: 12,
      path: 'sandbox.network',
      value: '"maybe"',
      hint: 'use one of: "host", "none"',
    };
    for (const args of [['config'], ['run', '--dry-run']]) {
      const r = await runCli(args, { cwd: ws });
      expect(r.exitCode, args.join(' ')).toBe(2);
      const out = `${r.stdout}${r.stderr}`;
      // the dry run names files inside the workspace relative to it
      expect(out, args.join(' ')).toContain('switchyard.config.yaml:4:12 sandbox.network: ');
      expect(out, args.join(' ')).toContain(
        '    value: "maybe"\n    hint: use one of: "host", "none"',
      );
    }
    const config = await runCli(['config', '--json'], { cwd: ws });
    const error = JSON.parse(config.stdout.trim().split('\n').at(-1) ?? '');
    expect(error.problems).toEqual([expect.objectContaining(expected)]);
    const dryRun = await runCli(['run', '--dry-run', '--json'], { cwd: ws });
    expect(JSON.parse(dryRun.stdout).problems).toEqual([
      expect.objectContaining({ ...expected, file: 'switchyard.config.yaml' }),
    ]);
  });

  it('two config files in one folder is an error naming both', async () => {
    const { ws } = makeWorkspace();
    mkdirSync(join(ws, 'agent-task'));
    writeFileSync(join(ws, 'switchyard.config.json'), '{}');
    writeFileSync(join(ws, '.switchyardrc.json'), '{}');
    for (const args of [['config'], ['run', '--dry-run']]) {
      const r = await runCli(args, { cwd: ws });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(`${r.stdout}${r.stderr}`).toContain(
        `Two config files in one folder: ${join(ws, 'switchyard.config.json')} and ${join(ws, '.switchyardrc.json')}`,
      );
    }
  });
});
