import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlugins } from './loader.js';
import { PluginSet } from './plugin-set.js';

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sy-plugins-'));
  writeFileSync(
    join(dir, 'one.mjs'),
    `export default { kind: 'classifier', meta: { name: 'one', version: '1.2.3' }, agents: ['a'], classify: () => undefined, isRetryLine: (l) => l.startsWith('retry') };`,
  );
  writeFileSync(
    join(dir, 'factory.mjs'),
    `export default (opts) => [
      { kind: 'classifier', meta: { name: 'generic-' + opts.tag }, agents: '*', classify: () => undefined },
      { kind: 'transcript', meta: { name: 'tx-' + opts.tag }, agents: ['a'], formatEvent: (e) => String(e.type) },
    ];`,
  );
  writeFileSync(
    join(dir, 'cjs.cjs'),
    `module.exports = { default: { kind: 'classifier', meta: { name: 'cjs' }, agents: ['b'], classify() {} } };`,
  );
  mkdirSync(join(dir, 'node_modules', 'sy-pkg'), { recursive: true });
  writeFileSync(
    join(dir, 'node_modules', 'sy-pkg', 'package.json'),
    JSON.stringify({ name: 'sy-pkg', version: '4.5.6', main: 'index.js' }),
  );
  writeFileSync(
    join(dir, 'node_modules', 'sy-pkg', 'index.js'),
    `module.exports = { kind: 'classifier', meta: { name: 'pkg' }, agents: ['a'], classify() { return { class: 'success', confidence: 'certain', evidence: [] }; } };`,
  );
  writeFileSync(
    join(dir, 'bad.mjs'),
    `export default { kind: 'classifier', meta: { name: '' }, agents: [], classify: 3 };`,
  );
  return dir;
}

describe('loadPlugins', () => {
  it('loads paths, packages, factories with options, arrays and CJS double defaults', async () => {
    const dir = project();
    const loaded = await loadPlugins({
      entries: ['./one.mjs', ['./factory.mjs', { tag: 'x' }], './cjs.cjs', 'sy-pkg'],
      configDir: dir,
      fallbackDir: dir,
    });
    expect(loaded.map((l) => [l.plugin.meta.name, l.version])).toEqual([
      ['one', '1.2.3'],
      ['generic-x', undefined],
      ['tx-x', undefined],
      ['cjs', undefined],
      ['pkg', '4.5.6'],
    ]);
    const set = new PluginSet(loaded);
    expect(set.classifiersFor('a').map((c) => c.meta.name)).toEqual(['one', 'pkg', 'generic-x']);
    expect(set.transcriptFor('a')?.meta.name).toBe('tx-x');
    expect(set.isRetryLineFor('a')('retrying in 5s')).toBe(true);
    expect(set.isRetryLineFor('a')('done')).toBe(false);
    expect(() => set.runnerFor('jsonl')).toThrow(/No runner plugin serves output format "jsonl"/);
  });

  it('reports every bad or missing plugin by name and reason', async () => {
    const dir = project();
    const error = await loadPlugins({
      entries: ['./bad.mjs', 'no-such-plugin', './missing.mjs'],
      configDir: dir,
      fallbackDir: dir,
      configFile: join(dir, 'switchyard.config.mjs'),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SY_PLUGIN_LOAD' });
    const messages = (error as { problems: { message: string; path: string }[] }).problems.map(
      (p) => `${p.path} ${p.message}`,
    );
    expect(messages).toEqual([
      'plugins.0 plugin "./bad.mjs": meta.name: meta.name must be a non-empty string',
      'plugins.0 plugin "./bad.mjs": agents: agents must list at least one agent or be "*"',
      'plugins.0 plugin "./bad.mjs": classify: classify must be a function',
      expect.stringMatching(
        /^plugins\.1 Failed to load plugin "no-such-plugin": Cannot find module/,
      ),
      expect.stringMatching(/^plugins\.2 Failed to load plugin "\.\/missing\.mjs"/),
    ]);
  });

  it('rejects two plugins with one name', async () => {
    const dir = project();
    const loaded = await loadPlugins({
      entries: ['./one.mjs', './one.mjs'],
      configDir: dir,
      fallbackDir: dir,
    });
    expect(() => new PluginSet(loaded)).toThrow(/registered twice/);
  });
});
