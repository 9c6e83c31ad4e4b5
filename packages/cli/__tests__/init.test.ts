import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expandCatalog, isCompactCatalog } from '@switchyard/catalog';
import { describe, expect, it, vi } from 'vitest';
import { fakeBinDir, runCli, tempDir } from './catalog-helpers.js';

// Each test spawns real processes (the built CLI, fake agent CLIs); allow for a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const read = async (dir: string, file: string) =>
  JSON.parse(await readFile(join(dir, file), 'utf8'));

/** The catalog init wrote, in the full form (init writes the compact one). */
const readCatalog = async (dir: string) => {
  const raw = await read(dir, 'execution-catalog.json');
  expect(isCompactCatalog(raw)).toBe(true);
  return expandCatalog(raw).catalog as any;
};

/** Every (stage, local route, target) whose target is not a local one. */
function cloudInLocal(catalog: any): string[] {
  const bad: string[] = [];
  for (const stage of ['worker', 'review'])
    for (const [id, route] of Object.entries<any>(catalog.routes[stage]))
      if (id.startsWith('local-'))
        for (const c of route.candidates ?? route.windows.flatMap((w: any) => w.candidates))
          if (catalog.targets[c].execution_class !== 'local_model') bad.push(`${stage} ${id} ${c}`);
  return bad;
}

describe('switchyard init', () => {
  it('without a terminal asks nothing: writes the catalog from the detected CLIs and the project config', async () => {
    const cwd = await tempDir();
    const PATH = await fakeBinDir(['claude', 'codex']);
    // The test runner's stdin/stdout are pipes, not a terminal.
    const r = await runCli(['init'], { cwd, env: { PATH } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/wrote .*execution-catalog\.json/);
    expect(r.stdout).toMatch(/wrote .*switchyard\.config\.json/);
    const config = await read(cwd, 'switchyard.config.json');
    expect(config).toEqual({
      executionCatalog: './execution-catalog.json',
      routing: {
        complexity: { routine: 'cloud-G08', standard: 'cloud-G04', complex: 'cloud-G01' },
      },
    });
    const catalog = await readCatalog(cwd);
    expect(catalog.routes.worker['cloud-G01'].candidates[0]).toBe('claude-opus');
    expect(catalog.routes.worker['cloud-G04'].candidates[0]).toBe('claude-sonnet');
    expect(catalog.routes.worker['cloud-G08'].candidates[0]).toBe('codex-gpt-5');
    expect(cloudInLocal(catalog)).toEqual([]);

    // The written project works: the config is valid and points at a valid catalog.
    const validate = await runCli(['catalog', 'validate', '--skip-command-check'], {
      cwd,
      env: { PATH },
    });
    expect(validate.exitCode, validate.stderr).toBe(0);
    expect(validate.stdout).toContain('execution-catalog.json');
    // Compact, with what agents may do: "edit" unless asked otherwise (no flag in any argv).
    const text = await readFile(join(cwd, 'execution-catalog.json'), 'utf8');
    expect(text).not.toContain('acceptEdits');
    for (const target of Object.values<any>(catalog.targets))
      expect(target.permissions).toBe('edit');
    // The full form of it has the revision validate reports.
    const shown = await runCli(['catalog', 'show', '--expanded', '--json'], { cwd, env: { PATH } });
    expect(shown.exitCode, shown.stderr).toBe(0);
    const expanded = JSON.parse(shown.stdout);
    expect(expanded.form).toBe('compact');
    expect(Object.keys(expanded.catalog.routes.worker)).toHaveLength(20);
    const lines = (t: string) => t.split('\n').length;
    expect(lines(text)).toBeLessThan(lines(JSON.stringify(expanded.catalog, null, 2)) / 2);
    expect(validate.stdout).toContain(expanded.revision);
  });

  it('--yes with flags puts each chosen target first in its lanes, never a cloud one in a local route; the lockfiles found give the worktree set-up', async () => {
    const cwd = await tempDir();
    const PATH = await fakeBinDir(['claude', 'codex', 'gemini']);
    await writeFile(join(cwd, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
    await writeFile(join(cwd, 'uv.lock'), 'version = 1\n');
    const r = await runCli(
      [
        'init',
        '--yes',
        '--json',
        '--fast',
        'gemini-pro',
        '--standard',
        'codex-gpt-5',
        '--complex',
        'claude-opus',
        '--review',
        'codex-oss',
        '--permissions',
        'edit+shell',
      ],
      { cwd, env: { PATH } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.permissions).toBe('edit+shell');
    expect(out.choices).toEqual({
      fast: 'gemini-pro',
      standard: 'codex-gpt-5',
      complex: 'claude-opus',
      review: 'codex-oss',
    });
    const catalog = await readCatalog(cwd);
    const first = (stage: string, route: string) => catalog.routes[stage][route].candidates[0];
    for (const g of ['G01', 'G02', 'G03'])
      expect(first('worker', `cloud-${g}`)).toBe('claude-opus');
    for (const g of ['G04', 'G05', 'G06', 'G07'])
      expect(first('worker', `cloud-${g}`)).toBe('codex-gpt-5');
    for (const g of ['G08', 'G09', 'G10']) expect(first('worker', `cloud-${g}`)).toBe('gemini-pro');
    // The other installed targets stay behind the choice as failover.
    expect(catalog.routes.worker['cloud-G01'].candidates.length).toBeGreaterThan(1);
    // A local review target goes into the local review routes too; cloud ones never do.
    expect(first('review', 'cloud-G04')).toBe('codex-oss');
    expect(first('review', 'local-G04')).toBe('codex-oss');
    expect(cloudInLocal(catalog)).toEqual([]);
    // A new worktree holds only tracked files: its dependencies from the shared stores.
    const setup = [
      ['pnpm', 'install', '--frozen-lockfile', '--prefer-offline'],
      ['uv', 'sync', '--frozen'],
    ];
    expect(out.setup.map((s: { command: string[] }) => s.command)).toEqual(setup);
    expect((await read(cwd, 'switchyard.config.json')).isolation).toEqual({ setup });
  });

  it('refuses an unknown target and existing files (exit 2), writing nothing', async () => {
    const cwd = await tempDir();
    const PATH = await fakeBinDir(['claude']);
    const bad = await runCli(['init', '--yes', '--fast', 'gpt-9'], { cwd, env: { PATH } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--fast names target "gpt-9"');
    expect(bad.stderr).toContain('claude-opus');
    await expect(readFile(join(cwd, 'execution-catalog.json'))).rejects.toThrow();

    await writeFile(join(cwd, 'switchyard.config.json'), '{"maxParallel": 2}\n');
    const exists = await runCli(['init', '--yes'], { cwd, env: { PATH } });
    expect(exists.exitCode).toBe(2);
    expect(exists.stderr).toContain('already exists');
    // --force keeps the config's other keys.
    const forced = await runCli(['init', '--yes', '--force'], { cwd, env: { PATH } });
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(await read(cwd, 'switchyard.config.json')).toMatchObject({
      maxParallel: 2,
      executionCatalog: './execution-catalog.json',
    });
  });

  it('--sandbox bwrap writes the sandbox when bubblewrap works here, and is refused (exit 2, nothing written) when it cannot run', async () => {
    const cwd = await tempDir();
    const fake = await fakeBinDir(['claude']);
    const PATH = `${fake}:/usr/bin:/bin`; // bwrap is in /usr/bin (.ci/run installs it)
    const r = await runCli(['init', '--yes', '--json', '--sandbox', 'bwrap'], {
      cwd,
      env: { PATH },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      sandbox: { mode: 'bwrap' },
      bwrap: { command: expect.stringMatching(/\/bwrap$/) },
    });
    expect((await read(cwd, 'switchyard.config.json')).sandbox).toEqual({ mode: 'bwrap' });

    const elsewhere = await tempDir();
    const refused = await runCli(['init', '--yes', '--sandbox', 'bwrap'], {
      cwd: elsewhere,
      env: { PATH: fake },
    });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('SY_SANDBOX_UNAVAILABLE');
    expect(refused.stderr).toContain('apt-get install bubblewrap');
    await expect(readFile(join(elsewhere, 'switchyard.config.json'))).rejects.toThrow();
  });
});
