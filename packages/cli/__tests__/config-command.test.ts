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
    writeFileSync(join(ws, 'switchyard.config.json'), '{ "retry": { "baseDelayMs": 10 } }');
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
    const json = await runCli(['config', '--json'], { cwd: ws });
    const doc = JSON.parse(json.stdout);
    expect(doc.values).toContainEqual({
      key: 'retry.baseDelayMs',
      value: 10,
      from: 'file',
      source: 'switchyard.config.json',
    });
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
