import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { fakeBinDir, runCli, tempDir } from './catalog-helpers.js';

// Each test spawns real processes (the built CLI, Node); allow for a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

async function init(agents: string[], extra: string[] = []) {
  const cwd = await tempDir();
  const PATH = await fakeBinDir(agents);
  const r = await runCli(['catalog', 'init', ...extra], { cwd, env: { PATH } });
  return { ...r, cwd, PATH };
}

describe('switchyard catalog init', () => {
  it('writes a valid catalog using only the one agent CLI installed', async () => {
    const r = await init(['claude']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote .*execution-catalog\.json/);
    expect(r.stdout).toMatch(/"executionCatalog": "\.\/execution-catalog\.json"/);
    const catalog = JSON.parse(await readFile(join(r.cwd, 'execution-catalog.json'), 'utf8'));
    expect(Object.keys(catalog.targets).sort()).toEqual(['claude-opus', 'claude-sonnet']);
    // No local-model CLI here: local routes fall back to any installed target.
    expect(catalog.routes.worker['local-G01'].candidates).toEqual(['claude-opus', 'claude-sonnet']);
    expect(catalog.routes.worker['cloud-G01'].candidates).toEqual(['claude-opus']);
    expect(catalog.routes.review['cloud-G05'].windows[0].candidates).toEqual(['claude-sonnet']);

    const validate = await runCli(
      ['catalog', 'validate', '--execution-catalog', 'execution-catalog.json'],
      {
        cwd: r.cwd,
        env: { PATH: r.PATH },
      },
    );
    expect(validate.exitCode, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(
      /targets {3}2 \(2 cloud_model\); commands executable on this machine/,
    );
  });

  it('keeps local routes on local-model targets when a local-capable CLI is installed', async () => {
    const r = await init(['qwen'], ['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.kept).toEqual(['qwen-coder-plus', 'qwen-local']);
    expect(report.revision).toMatch(/^[0-9a-f]{64}$/);
    const catalog = JSON.parse(await readFile(report.path, 'utf8'));
    expect(catalog.routes.worker['local-G03'].candidates).toEqual(['qwen-local']);
    expect(catalog.routes.review['local-G03'].candidates).toEqual(['qwen-local']);
    expect(catalog.routes.worker['cloud-G01'].candidates).toEqual(['qwen-coder-plus']);
    expect(report.filled).toContain('worker.cloud-G01');
  });

  it('refuses to overwrite without --force', async () => {
    const first = await init(['codex']);
    expect(first.exitCode, first.stderr).toBe(0);
    const again = await runCli(['catalog', 'init'], { cwd: first.cwd, env: { PATH: first.PATH } });
    expect(again.exitCode, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(again.stderr).toMatch(/--force/);
    const forced = await runCli(['catalog', 'init', '--force', '--output', 'cfg/catalog.json'], {
      cwd: first.cwd,
      env: { PATH: first.PATH },
    });
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/"executionCatalog": "\.\/cfg\/catalog\.json"/);
  });

  it('fails clearly when no agent CLI is installed', async () => {
    const r = await init([]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/No agent CLI of the default catalog is installed/);
    expect(r.stderr).toMatch(/install at least one of: claude, codex, gemini, qwen/);
  });
});
