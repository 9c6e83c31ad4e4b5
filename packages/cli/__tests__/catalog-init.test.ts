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
  it('with only claude installed: cloud routes on it, local routes never on a cloud target', async () => {
    const r = await init(['claude']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote .*execution-catalog\.json/);
    expect(r.stdout).toMatch(/claude +found +claude --version/); // the fake prints its argv
    expect(r.stdout).toMatch(/codex +not installed/);
    expect(r.stdout).toMatch(/placeholders qwen-local, codex-oss/);
    expect(r.stdout).toMatch(/local-G01…G10 +must keep code and prompts on this machine/);
    expect(r.stdout).toMatch(/cloud-G01…G03 +cloud-complex/);
    expect(r.stdout).toMatch(/switchyard\.config\.json in the workspace root/);
    expect(r.stdout).toMatch(/"executionCatalog": "\.\/execution-catalog\.json"/);
    const catalog = JSON.parse(await readFile(join(r.cwd, 'execution-catalog.json'), 'utf8'));
    expect(catalog.$schema).toMatch(/execution-catalog\.schema\.json$/);
    expect(Object.keys(catalog.targets).sort()).toEqual([
      'claude-opus',
      'claude-sonnet',
      'codex-oss',
      'qwen-local',
    ]);
    for (const stage of ['worker', 'review'])
      for (let i = 1; i <= 10; i++) {
        const local = catalog.routes[stage][`local-G${String(i).padStart(2, '0')}`];
        for (const id of local.candidates)
          expect(catalog.targets[id].execution_class, `${stage} local-G${i} ${id}`).toBe(
            'local_model',
          );
      }
    expect(catalog.routes.worker['cloud-G01'].candidates).toEqual(['claude-opus']);
    expect(catalog.routes.review['cloud-G05'].windows[0].candidates).toEqual(['claude-sonnet']);

    // The advice it prints works as written (the placeholders' commands are missing here).
    const advice = /Check it with: switchyard (catalog validate .*--skip-command-check)\n/.exec(
      r.stdout,
    );
    expect(advice, r.stdout).not.toBeNull();
    expect(r.stdout).toMatch(/the placeholder targets qwen-local, codex-oss have/);
    const validate = await runCli(advice![1]!.split(' '), { cwd: r.cwd, env: { PATH: r.PATH } });
    expect(validate.exitCode, validate.stderr).toBe(0);
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

  it('with no agent CLI installed writes the default as a template and says how to finish it', async () => {
    const r = await init([]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/as a template: no agent CLI is installed here/);
    expect(r.stdout).toMatch(/Install one of claude, codex, gemini, qwen/);
    expect(r.stdout).toMatch(/catalog init --force/);
    const advice = /Check it with: switchyard (catalog validate .*--skip-command-check)\n/.exec(
      r.stdout,
    );
    expect(advice, r.stdout).not.toBeNull();
    const validate = await runCli(advice![1]!.split(' '), { cwd: r.cwd, env: { PATH: r.PATH } });
    expect(validate.exitCode, validate.stderr).toBe(0);
    const catalog = JSON.parse(await readFile(join(r.cwd, 'execution-catalog.json'), 'utf8'));
    expect(Object.keys(catalog.targets)).toContain('claude-opus');
    expect(catalog.$schema).toMatch(/execution-catalog\.schema\.json$/);
  });
});

describe('unknown agent names', () => {
  it('catalog validate warns with the closest known name', async () => {
    const cwd = await tempDir();
    const r = await init(['claude']);
    const catalog = JSON.parse(await readFile(join(r.cwd, 'execution-catalog.json'), 'utf8'));
    catalog.targets['claude-opus'].agent = 'claude';
    catalog.targets['claude-sonnet'].agent = 'gemni-cli';
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(cwd, 'c.json'), JSON.stringify(catalog));
    const v = await runCli(
      ['catalog', 'validate', '--skip-command-check', '--execution-catalog', 'c.json'],
      {
        cwd,
      },
    );
    expect(v.exitCode, v.stderr).toBe(0);
    expect(v.stderr).toContain('agent "claude" is not a known agent; did you mean "claude-code"?');
    expect(v.stderr).toContain(
      'agent "gemni-cli" is not a known agent; did you mean "gemini-cli"?',
    );
  });
});
