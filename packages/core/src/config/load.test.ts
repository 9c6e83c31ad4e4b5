import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { loadProjectConfig } from './load.js';
import { defineConfig } from './schema.js';

const tmp = () => mkdtemp(join(tmpdir(), 'sy-config-'));

describe('loadProjectConfig', () => {
  it('returns documented defaults when there is no config', async () => {
    const { config, filepath } = await loadProjectConfig(await tmp());
    expect(filepath).toBeUndefined();
    expect(config).toEqual({
      plugins: [],
      retry: { baseDelayMs: 2000, maxDelayMs: 300_000 },
      maxParallel: 3,
      stallTimeoutMs: 900_000,
      prompts: {},
      writeSet: 'correct',
    });
  });

  it('finds a config upward from a subdirectory and fills defaults', async () => {
    const dir = await tmp();
    await writeFile(
      join(dir, 'switchyard.config.yaml'),
      'maxParallel: 0\nplugins:\n  - ./my-classifier.mjs\n  - [switchyard-runner-x, { fast: true }]\nretry:\n  baseDelayMs: 10\n',
    );
    const sub = join(dir, 'a', 'b');
    await mkdir(sub, { recursive: true });
    const { config, filepath } = await loadProjectConfig(sub);
    expect(filepath).toBe(join(dir, 'switchyard.config.yaml'));
    expect(config.maxParallel).toBe(0);
    expect(config.plugins).toEqual([
      './my-classifier.mjs',
      ['switchyard-runner-x', { fast: true }],
    ]);
    expect(config.retry).toEqual({ baseDelayMs: 10, maxDelayMs: 300_000 });
  });

  it('loads an ESM config written with defineConfig', async () => {
    const dir = await tmp();
    await writeFile(
      join(dir, 'switchyard.config.mjs'),
      'export default { executionCatalog: "./catalog.json", prompts: { review: "./review.md" } };\n',
    );
    const { config } = await loadProjectConfig(dir);
    expect(config.executionCatalog).toBe('./catalog.json');
    expect(config.prompts).toEqual({ review: './review.md' });
    expect(defineConfig({ maxParallel: 2 })).toEqual({ maxParallel: 2 });
  });

  it('rejects unknown keys and bad values, all at once with dotted paths', async () => {
    const dir = await tmp();
    await writeFile(
      join(dir, '.switchyardrc.json'),
      JSON.stringify({
        maxParalel: 2,
        maxParallel: -1,
        retry: { baseDelayMs: 'soon' },
        plugins: [3],
      }),
    );
    const error = (await loadProjectConfig(dir).catch((e) => e)) as SwitchyardError;
    expect(SwitchyardError.is(error)).toBe(true);
    expect(error.code).toBe('SY_CONFIG_INVALID');
    expect(error.problems.map((p) => p.path).sort()).toEqual([
      'maxParalel',
      'maxParallel',
      'plugins.0',
      'retry.baseDelayMs',
    ]);
    expect(error.problems.every((p) => p.file === join(dir, '.switchyardrc.json'))).toBe(true);
  });

  it('reports a config with broken syntax', async () => {
    const dir = await tmp();
    await writeFile(join(dir, '.switchyardrc.json'), '{ "maxParallel": ');
    const error = (await loadProjectConfig(dir).catch((e) => e)) as SwitchyardError;
    expect(error.code).toBe('SY_CONFIG_INVALID');
  });
});
