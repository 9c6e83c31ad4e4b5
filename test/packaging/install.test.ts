import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';

// Installs switchyard the way users install CLIs: every publishable package packed with
// `pnpm pack`, the tarballs installed into an empty folder with plain npm (registry
// dependencies come from the npm registry), then the installed `switchyard` is run with npx.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PNPM = join(ROOT, 'node_modules', '.bin', 'pnpm');
// npm, npx and the installed bin run on this Node (22.12+), whatever `node` is on PATH.
const ENV = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}/usr/local/bin${delimiter}/usr/bin${delimiter}/bin`,
  npm_config_update_notifier: 'false',
};

const publishable = () =>
  ['packages', 'plugins'].flatMap((parent) =>
    readdirSync(join(ROOT, parent))
      .map((name) => join(ROOT, parent, name))
      .filter((dir) => {
        try {
          return !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private;
        } catch {
          return false;
        }
      }),
  );

let project: string;
const npx = (args: string[], cwd = project) =>
  execa('npx', ['--no-install', 'switchyard', ...args], { cwd, env: ENV, reject: false });

/** The code block of PLUGINS.md whose first line is `// <file>`, exactly as written there. */
function guideBlock(file: string): string {
  const guide = readFileSync(join(ROOT, 'packages', 'core', 'PLUGINS.md'), 'utf8');
  const block = [...guide.matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((code) => code.startsWith(`// ${file}\n`));
  if (!block) throw new Error(`PLUGINS.md has no code block for ${file}`);
  return block;
}

describe('installed from packed tarballs with npm', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    const packs = mkdtempSync(join(tmpdir(), 'sy-packs-'));
    await Promise.all(
      publishable().map((dir) =>
        execa(PNPM, ['pack', '--pack-destination', packs], { cwd: dir, env: ENV }),
      ),
    );
    project = mkdtempSync(join(tmpdir(), 'sy-installed-'));
    writeFileSync(join(project, 'package.json'), '{ "name": "try-switchyard", "private": true }\n');
    const tarballs = readdirSync(packs).map((f) => join(packs, f));
    await execa('npm', ['install', '--no-audit', '--no-fund', ...tarballs], {
      cwd: project,
      env: ENV,
    });
  }, 240_000);

  it('npx switchyard --help works, and the test kit is no runtime dependency', async () => {
    const help = await npx(['--help']);
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: switchyard');
    const cli = JSON.parse(
      readFileSync(join(project, 'node_modules', '@switchyard', 'cli', 'package.json'), 'utf8'),
    );
    expect(Object.keys(cli.dependencies)).not.toContain('@switchyard/testkit');
    expect(Object.keys(cli.optionalDependencies)).toContain('@switchyard/testkit');
  });

  it('catalog init with no agent installed writes a template (exit 0)', async () => {
    const dir = join(project, 'init');
    mkdirSync(dir);
    const init = await npx(['catalog', 'init'], dir);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout).toContain('as a template');
    const catalog = JSON.parse(readFileSync(join(dir, 'execution-catalog.json'), 'utf8'));
    expect(catalog.$schema).toMatch(/execution-catalog\.schema\.json$/);
  });

  it('runs the demo, then a run, status and dry run on its workspace', async () => {
    const demo = join(project, 'demo');
    const run = await npx(['demo', '--dir', demo]);
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('Where to look');
    const catalog = join(demo, '.switchyard-demo', 'catalog.json');
    const again = await npx(['run', '--execution-catalog', catalog], demo);
    expect(again.exitCode, again.stderr).toBe(0);
    const status = await npx(['status', '--json'], join(demo, 'src'));
    expect(status.exitCode, status.stderr).toBe(0);
    const dry = await npx(['run', '--dry-run', '--json', '--execution-catalog', catalog], demo);
    expect(dry.exitCode, dry.stderr).toBe(0);
  });

  it('follows PLUGINS.md literally; run and dry run agree on a broken plugin', async () => {
    const ws = join(project, 'plugged');
    mkdirSync(join(ws, 'tools'), { recursive: true });
    mkdirSync(join(ws, 'agent-task', 'g', 't'), { recursive: true });
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'a.js'), '');
    writeFileSync(
      join(ws, 'agent-task', 'g', 't', 'PLAN.md'),
      '---\nroute: cloud-G01\n---\n# t\n\n## Modified Files Summary\n\n- src/a.js\n\n## Implementation Checklist\n\n- [ ] do it\n',
    );
    writeFileSync(join(ws, 'switchyard.config.mjs'), guideBlock('switchyard.config.mjs'));
    writeFileSync(join(ws, 'tools', 'my-classifier.mjs'), guideBlock('tools/my-classifier.mjs'));
    const plugins = await npx(['plugins', '--json'], ws);
    expect(plugins.exitCode, plugins.stderr).toBe(0);
    const names = JSON.parse(plugins.stdout).map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['switchyard-classifier-acme', 'switchyard-transcript-acme']),
    );

    // A plugin without its `classify` function: both commands exit 2 with the plugin's error.
    writeFileSync(
      join(ws, 'tools', 'my-classifier.mjs'),
      "export default { kind: 'classifier', meta: { name: 'broken' }, agents: ['x'] };\n",
    );
    const catalog = join(project, 'demo', '.switchyard-demo', 'catalog.json');
    const dry = await npx(['run', '--dry-run', '--execution-catalog', catalog], ws);
    const live = await npx(['run', '--execution-catalog', catalog], ws);
    expect(dry.exitCode).toBe(2);
    expect(live.exitCode).toBe(2);
    expect(dry.stdout).toMatch(/SY_PLUGIN_LOAD.*classify/);
    expect(live.stderr).toMatch(/SY_PLUGIN_LOAD.*classify/);
  });
});
