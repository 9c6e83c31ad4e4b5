import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { findConfigFile, loadProjectConfig } from './load.js';
import { defineConfig } from './schema.js';

const tmp = () => mkdtemp(join(tmpdir(), 'sy-config-'));

describe('loadProjectConfig', () => {
  it('returns documented defaults when there is no config', async () => {
    const { config, filepath } = await loadProjectConfig(await tmp());
    expect(filepath).toBeUndefined();
    expect(config).toEqual({
      plugins: [],
      retry: { baseDelayMs: 2000, maxDelayMs: 300_000 },
      park: { maxWaitSeconds: 21_600, maxParks: 10 },
      maxParallel: 3,
      stallTimeoutMs: 900_000,
      maxAttemptSeconds: 7200,
      evidence: { maxAttemptBytes: 8 * 1024 * 1024 },
      prompts: {},
      sandbox: 'none',
      sandboxTargets: {},
      writeSet: 'correct',
      corrections: { maxRepeats: 3 },
      prices: {},
      gates: [],
      review: {},
      routing: {
        complexity: { routine: 'cloud-G08', standard: 'cloud-G04', complex: 'cloud-G01' },
        risk: { low: {}, high: { review: 'red-team' } },
      },
      cost: {},
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
    await mkdir(join(dir, 'agent-task'));
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

  it('reports a config with broken syntax, on its line (JSON and YAML)', async () => {
    const dir = await tmp();
    await writeFile(join(dir, '.switchyardrc.json'), '{\n  "maxParallel": 2,\n  "retry": }\n');
    const error = (await loadProjectConfig(dir).catch((e) => e)) as SwitchyardError;
    expect(error.code).toBe('SY_CONFIG_INVALID');
    expect([error.file, error.line, error.hint]).toEqual([
      join(dir, '.switchyardrc.json'),
      3,
      'fix the syntax of the config file',
    ]);
    // found by the fuzzer: a YAML syntax error had no line
    const yamlDir = await tmp();
    await writeFile(join(yamlDir, 'switchyard.config.yaml'), 'maxParallel: 2\nretry: [[[# x\n');
    const yamlError = (await loadProjectConfig(yamlDir).catch((e) => e)) as SwitchyardError;
    expect([yamlError.code, yamlError.line]).toEqual(['SY_CONFIG_INVALID', 2]);
    await writeFile(
      join(yamlDir, 'switchyard.config.yaml'),
      '# c\nmaxParallel: 2\n\n---\nmaxParallel: 3\n',
    );
    const twoDocs = (await loadProjectConfig(yamlDir).catch((e) => e)) as SwitchyardError;
    expect([twoDocs.code, twoDocs.line]).toEqual(['SY_CONFIG_INVALID', 4]);
  });

  it('reads a YAML config that is all comments as an empty config (found by the fuzzer)', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'switchyard.config.yaml'), '# maxParallel: 4\r\n\n  # retry: {}\n');
    const loaded = await loadProjectConfig(dir);
    expect(loaded.filepath).toBe(join(dir, 'switchyard.config.yaml'));
    expect(loaded.config.maxParallel).toBe(3);
  });

  it('refuses NUL characters in keys and values with their paths (found by the fuzzer)', async () => {
    const dir = await tmp();
    await writeFile(
      join(dir, 'switchyard.config.yaml'),
      'executionCatalog: "cat\\0alog.json"\nprompts:\n  "wor\\0ker": x.md\n',
    );
    const error = (await loadProjectConfig(dir).catch((e) => e)) as SwitchyardError;
    expect(error.code).toBe('SY_CONFIG_INVALID');
    expect(error.problems.map((p) => p.path).sort()).toEqual([
      'executionCatalog',
      'prompts.wor\\0ker',
    ]);
    expect(error.hint).toMatch(/NUL/);
  });

  it('never searches above the workspace root, so config code above it never runs', async () => {
    const outer = await tmp();
    const marker = join(outer, 'ran.txt');
    // A config above the workspace that would leave a file behind if it were executed.
    await writeFile(
      join(outer, 'switchyard.config.mjs'),
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x'); export default {};\n`,
    );
    const repo = join(outer, 'repo');
    await mkdir(join(repo, '.git'), { recursive: true });
    await mkdir(join(repo, 'src'), { recursive: true });
    expect(await loadProjectConfig(join(repo, 'src'))).toEqual({
      config: expect.objectContaining({ maxParallel: 3 }),
    });
    // Without any workspace marker, only the folder itself is searched.
    const loose = join(outer, 'loose');
    await mkdir(loose);
    expect((await loadProjectConfig(loose)).filepath).toBeUndefined();
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses two config files in one folder, naming both', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'switchyard.config.json'), '{}');
    await writeFile(join(dir, '.switchyardrc.json'), '{}');
    const error = (await loadProjectConfig(dir).catch((e) => e)) as SwitchyardError;
    expect(error.code).toBe('SY_CONFIG_INVALID');
    expect(error.message).toContain(join(dir, 'switchyard.config.json'));
    expect(error.message).toContain(join(dir, '.switchyardrc.json'));
  });

  it('counts package.json only when it has a "switchyard" key', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'package.json'), '{"name":"x"}');
    await writeFile(join(dir, 'switchyard.config.json'), '{"maxParallel":1}');
    expect(findConfigFile(dir)).toBe(join(dir, 'switchyard.config.json'));
    await writeFile(join(dir, 'package.json'), '{"name":"x","switchyard":{"maxParallel":2}}');
    expect(() => findConfigFile(dir)).toThrow(/Two config files/);
    await import('node:fs/promises').then((fs) => fs.rm(join(dir, 'switchyard.config.json')));
    const { config, raw } = await loadProjectConfig(dir);
    expect(config.maxParallel).toBe(2);
    expect(raw).toEqual({ maxParallel: 2 });
  });
});
