import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace, plan, SYSTEM_PATH } from './dry-run-helpers.js';

/**
 * A catalog where `t-gone`'s command is not installed: cloud routes list it first, then the
 * installed `t-here` (a script that leaves `launched` behind); local routes have only `t-gone`.
 */
function catalogWithMissingAgent(root: string) {
  const agent = join(root, 'agent-here');
  const marker = join(root, 'launched');
  writeFileSync(agent, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(agent, 0o755);
  const target = (command: string, cls: string) => ({
    agent: 'fake',
    model: 'm',
    execution_class: cls,
    runtime: { command: [command, '{prompt}'], preflight_command: [command] },
  });
  const routes: Record<string, Record<string, { candidates: string[] }>> = {
    worker: {},
    review: {},
  };
  for (const stage of ['worker', 'review'])
    for (let i = 1; i <= 10; i++) {
      const n = String(i).padStart(2, '0');
      routes[stage]![`cloud-G${n}`] = { candidates: ['t-gone', 't-here'] };
      routes[stage]![`local-G${n}`] = { candidates: ['t-gone'] };
    }
  const path = join(root, 'catalog.json');
  writeFileSync(
    path,
    JSON.stringify({
      schema_version: 1,
      targets: {
        't-gone': target('/nonexistent/agent-gone', 'local_model'),
        't-here': target(agent, 'cloud_model'),
      },
      routes,
    }),
  );
  return { path, marker };
}

describe('missing agent CLIs', { timeout: 90_000 }, () => {
  it('dry run: a route with another installed candidate proceeds, the missing one skipped with a warning', async () => {
    const { root, ws, write } = makeWorkspace();
    write('src/a.ts', '');
    write('agent-task/g/t/PLAN.md', plan('cloud-G01', ['src/a.ts']));
    const { path } = catalogWithMissingAgent(root);
    const result = await runCli(['run', '--dry-run', '--json', '--execution-catalog', path], {
      cwd: ws,
    });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.tasks[0].stages.worker.selected).toBe('t-here');
    expect(doc.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: expect.stringContaining('target "t-gone" skipped'),
      }),
    ]);
  });

  it('refuses only a route in use with no installed candidate, naming it (dry run and run)', async () => {
    const { root, ws, write } = makeWorkspace();
    write('src/a.ts', '');
    write('agent-task/g/t/PLAN.md', plan('local-G03', ['src/a.ts']));
    const { path, marker } = catalogWithMissingAgent(root);
    const dry = await runCli(['run', '--dry-run', '--execution-catalog', path], { cwd: ws });
    expect(dry.exitCode).toBe(2);
    expect(dry.stdout).toContain('route local-G03 (worker) has no installed candidate');
    const live = await runCli(['run', '--execution-catalog', path], { cwd: ws });
    expect(live.exitCode).toBe(2);
    expect(live.stderr).toContain('route local-G03 (worker) has no installed candidate');
    expect(live.stderr).not.toContain('--skip-command-check');
    expect(existsSync(marker)).toBe(false);
  });

  it('run: warns about the skipped target and goes on to the installed one', async () => {
    const { root, ws, write } = makeWorkspace();
    write('src/a.ts', '');
    write('agent-task/g/t/PLAN.md', plan('cloud-G01', ['src/a.ts']));
    write('switchyard.config.json', JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 1 } }));
    const { path, marker } = catalogWithMissingAgent(root);
    const live = await runCli(['run', '--json', '--execution-catalog', path], {
      cwd: ws,
      env: SYSTEM_PATH,
    });
    expect(live.stderr).toContain('target "t-gone" skipped');
    expect(live.exitCode).not.toBe(2);
    // The installed target's preflight and agent ran.
    expect(existsSync(marker)).toBe(true);
  });
});
