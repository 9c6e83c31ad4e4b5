import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

// A new contributor's first minutes: the README's install prints nothing to wonder about
// (no "Unsupported engine" on the system Node, no "Failed to create bin"), and no script
// sends telemetry. The spawned check installs a copy of the tracked files, as a fresh clone.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PNPM_CJS = join(ROOT, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');
/** PATH without the repositories' node_modules/.bin: the shell of someone who just cloned. */
const SYSTEM_PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !dir.includes(`node_modules${sep}.bin`))
  .join(delimiter);
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

const tracked = async () =>
  (
    await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
    })
  ).stdout
    .split('\0')
    .filter(Boolean);

const workspacePackages = (files: string[]) =>
  files.filter(
    (f) => /^(packages|plugins)\/[^/]+\/package\.json$/.test(f) || f === 'test/package.json',
  );

describe('first contact with the repository', () => {
  it('checks engines against the pinned Node every script runs on', () => {
    const workspace = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
    const nodeVersion = /^nodeVersion:\s*(\S+)\s*$/m.exec(workspace)?.[1];
    const pinned = readJson(join(ROOT, 'node_modules', 'node', 'package.json')).version;
    expect(nodeVersion, 'pnpm-workspace.yaml nodeVersion').toBe(pinned);
    // The product's own range stays honest: it needs 22.12+, and the pinned Node meets it.
    const cli = readJson(join(ROOT, 'packages', 'cli', 'package.json'));
    expect(cli.engines.node).toBe('>=22.12');
    expect(Number(pinned.split('.')[0])).toBeGreaterThanOrEqual(22);
  });

  it('links every bin at install time: each points at a tracked file, not at a build output', async () => {
    const files = await tracked();
    const bins = workspacePackages(files).flatMap((manifest) => {
      const bin = readJson(join(ROOT, manifest)).bin ?? {};
      const entries = typeof bin === 'string' ? [bin] : Object.values<string>(bin);
      return entries.map((target) => join(dirname(manifest), target).replace(/^\.\//, ''));
    });
    expect(bins.length).toBeGreaterThan(0);
    for (const bin of bins) expect(files, `${bin} is not in the repository`).toContain(bin);
  });

  it('turns turbo telemetry off in every script that runs turbo', () => {
    const scripts: Record<string, string> = readJson(join(ROOT, 'package.json')).scripts;
    const turbo = Object.entries(scripts).filter(([, s]) => /\bturbo\b/.test(s));
    expect(turbo.length).toBeGreaterThan(0);
    for (const [name, script] of turbo)
      for (const run of script.split('&&').filter((part) => /\bturbo\b/.test(part)))
        expect(run, `script "${name}"`).toMatch(/TURBO_TELEMETRY_DISABLED=1\s+turbo\b/);
  });

  describe('a fresh copy installs without a warning', { timeout: 240_000 }, () => {
    let dir: string | undefined;
    // A whole installed workspace: removing it takes a while on a busy disk.
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it('pnpm install --frozen-lockfile prints no WARN and links the bins', async () => {
      dir = mkdtempSync(join(tmpdir(), 'sy-fresh-clone-'));
      for (const file of await tracked()) {
        if (!existsSync(join(ROOT, file))) continue; // deleted in the working tree
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        copyFileSync(join(ROOT, file), join(dir, file));
      }
      // On the system Node the README's `npx pnpm install` runs on (Node 20 on this machine
      // kind), not the pinned one; the repository's own install filled the store: no network.
      const env = {
        ...process.env,
        PATH: SYSTEM_PATH,
        CI: '1',
        npm_config_update_notifier: 'false',
      };
      const node = (await execa('sh', ['-c', 'command -v node'], { env, reject: false })).stdout;
      const install = await execa(
        node || process.execPath,
        [PNPM_CJS, 'install', '--frozen-lockfile', '--prefer-offline'],
        { cwd: dir, all: true, reject: false, env },
      );
      expect(install.exitCode, install.all).toBe(0);
      expect(install.all).not.toMatch(/\bWARN\b/);
      expect(existsSync(join(dir, 'test', 'node_modules', '.bin', 'switchyard'))).toBe(true);
    });
  });
});
