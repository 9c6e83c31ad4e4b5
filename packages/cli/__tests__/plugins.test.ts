import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProjectConfig } from '@switchyard/config';
import { classifyEvidence, collectEvidence, loadPlugins, PluginSet } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';

const exampleProject = fileURLToPath(
  new URL('../../../test/fixtures/example-project', import.meta.url),
);
const cliDir = fileURLToPath(new URL('../dist', import.meta.url));

describe('switchyard plugins', { timeout: 60_000 }, () => {
  it('lists the built-in plugins, then the config’s example classifier package', async () => {
    const r = await runCli(['plugins', '--json'], { cwd: exampleProject });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as {
      name: string;
      kind: string;
      source: string;
      agents: unknown;
      version: string | null;
      outputFormats: unknown;
    }[];
    expect(rows.filter((p) => p.source === 'builtin').map((p) => p.name)).toEqual(
      expect.arrayContaining([
        '@switchyard/runner-text',
        '@switchyard/runner-jsonl',
        '@switchyard/runner-native-session',
      ]),
    );
    expect(rows.find((p) => p.name === '@switchyard/runner-jsonl')).toMatchObject({
      kind: 'runner',
      outputFormats: ['jsonl'],
    });
    expect(rows.slice(-2)).toEqual([
      expect.objectContaining({
        name: 'switchyard-classifier-example',
        kind: 'classifier',
        version: '1.0.0',
        agents: ['acme-agent'],
        source: 'config',
      }),
      expect.objectContaining({
        name: 'switchyard-transcript-example',
        kind: 'transcript',
        source: 'config',
      }),
    ]);
    const human = await runCli(['plugins'], { cwd: exampleProject });
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^NAME\s+VERSION\s+KIND\s+SERVES\s+SOURCE$/m);
    expect(human.stdout).toMatch(
      /switchyard-classifier-example\s+1\.0\.0\s+classifier\s+acme-agent\s+config: \.\.\/example-classifier/,
    );
  });

  it('exits 2 naming each plugin that fails to load or validate, and why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-plugins-cli-'));
    writeFileSync(
      join(dir, 'broken.mjs'),
      `export default { kind: 'classifier', meta: { name: 'broken' }, agents: ['x'] };`,
    );
    writeFileSync(
      join(dir, 'switchyard.config.mjs'),
      `export default { plugins: ['./broken.mjs', 'switchyard-plugin-that-does-not-exist'] };`,
    );
    const r = await runCli(['plugins'], { cwd: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('SY_PLUGIN_LOAD');
    expect(r.stderr).toContain(
      'plugins.0: plugin "./broken.mjs": classify: classify must be a function',
    );
    expect(r.stderr).toContain(
      'plugins.1: Failed to load plugin "switchyard-plugin-that-does-not-exist"',
    );
    expect(r.stdout).toBe('');
  });
});

describe('the example classifier, loaded through a real config file', () => {
  it('classifies only terminal evidence, with retryAfter, and formats the transcript', async () => {
    const { config, filepath } = await loadProjectConfig(exampleProject);
    const loaded = await loadPlugins({
      entries: config.plugins,
      configDir: exampleProject,
      configFile: filepath,
      fallbackDir: cliDir,
    });
    const plugins = new PluginSet(loaded);
    const classifiers = plugins.classifiersFor('acme-agent');
    const endedAt = new Date('2026-03-01T12:00:00Z');
    const context = { endedAt, timeZone: 'UTC' };

    const quota = collectEvidence({
      agent: 'acme-agent',
      outputFormat: 'text',
      stdout: 'working on it\n',
      stderr: 'acme: fatal: 429 too many requests, retry after 30s\n',
      exitCode: 1,
    });
    expect(await classifyEvidence(quota, classifiers, context)).toEqual({
      class: 'provider-quota',
      confidence: 'certain',
      evidence: ['acme: fatal: 429 too many requests, retry after 30s'],
      retryAfter: '2026-03-01T12:00:30.000Z',
      classifier: 'switchyard-classifier-example',
    });

    const prose = collectEvidence({
      agent: 'acme-agent',
      outputFormat: 'text',
      stdout: 'The docs: "acme: fatal: 429" means the quota is exceeded.\nDone.\n',
      stderr: '',
      exitCode: 0,
    });
    expect((await classifyEvidence(prose, classifiers, context)).class).toBe('success');

    const retry = plugins.isRetryLineFor('acme-agent');
    expect(retry('acme: reconnecting in 5s (attempt 3)')).toBe(true);
    expect(retry('acme: done')).toBe(false);
    expect(plugins.transcriptFor('acme-agent')?.formatEvent({ type: 'say', text: 'hi' })).toBe(
      'assistant: hi',
    );
  });
});
