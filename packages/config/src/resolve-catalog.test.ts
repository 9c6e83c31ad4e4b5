import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_ENV } from '@switchyard/catalog';
import { validCatalog } from '@switchyard/catalog/test-catalogs';
import { SwitchyardError } from '@switchyard/core';
import { assetPath } from '@switchyard/utils';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveCatalog } from './resolve-catalog.js';

let dir: string;
const env = { PATH: process.env.PATH } as NodeJS.ProcessEnv;
const write = async (path: string, value: unknown) => {
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};
const variant = (model: string) => {
  const raw = validCatalog();
  raw.targets['cloud-a'].model = model;
  return raw;
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sy-resolve-'));
});

describe('resolveCatalog', () => {
  it('uses the bundled default when nothing else is given', async () => {
    const resolved = await resolveCatalog({ cwd: dir, env, checkExecutables: false });
    expect(resolved.source).toEqual({
      kind: 'bundled',
      path: assetPath('default-execution-catalog.json'),
    });
    expect(resolved.revision).toMatch(/^[0-9a-f]{64}$/);
  });

  it('prefers flag > env > config > bundled and records the source', async () => {
    const flag = await write(join(dir, 'flag.json'), variant('from-flag'));
    const fromEnv = await write(join(dir, 'env.json'), variant('from-env'));
    await mkdir(join(dir, 'conf'));
    await write(join(dir, 'conf', 'catalog.json'), variant('from-config'));
    await write(join(dir, '.switchyardrc.json'), { executionCatalog: './conf/catalog.json' });
    await mkdir(join(dir, 'agent-task')); // the workspace root: the config search ends here
    const sub = join(dir, 'deep', 'sub');
    await mkdir(sub, { recursive: true });

    const all = await resolveCatalog({
      cwd: sub,
      flagPath: flag,
      env: { ...env, [CATALOG_ENV]: fromEnv },
    });
    expect(all.source).toEqual({ kind: 'flag', path: flag });
    expect(all.catalog.targets['cloud-a']!.model).toBe('from-flag');

    const noFlag = await resolveCatalog({ cwd: sub, env: { ...env, [CATALOG_ENV]: fromEnv } });
    expect(noFlag.source).toEqual({ kind: 'env', path: fromEnv });

    const config = await resolveCatalog({ cwd: sub, env });
    expect(config.source).toEqual({ kind: 'config', path: join(dir, 'conf', 'catalog.json') });
    expect(config.catalog.targets['cloud-a']!.model).toBe('from-config');
    expect(new Set([all.revision, noFlag.revision, config.revision]).size).toBe(3);
  });

  it('accepts a catalog inline in the project config', async () => {
    await write(join(dir, 'package.json'), {
      name: 'x',
      switchyard: { executionCatalog: variant('inline') },
    });
    const resolved = await resolveCatalog({ cwd: dir, env });
    expect(resolved.source).toEqual({
      kind: 'config',
      path: join(dir, 'package.json'),
      inline: true,
    });
    expect(resolved.catalog.targets['cloud-a']!.model).toBe('inline');
  });

  it('throws SY_CATALOG_INVALID with every problem, paths prefixed for an inline catalog', async () => {
    const raw = variant('x');
    raw.routes.worker['cloud-G01'].candidates = ['ghost'];
    raw.unknown = 1;
    await write(join(dir, 'switchyard.config.json'), { executionCatalog: raw });
    const error = await resolveCatalog({ cwd: dir, env }).catch((e: unknown) => e);
    expect(SwitchyardError.is(error)).toBe(true);
    const e = error as SwitchyardError;
    expect(e.code).toBe('SY_CATALOG_INVALID');
    expect(e.problems.map((p) => p.path).sort()).toEqual([
      'executionCatalog.routes.worker.cloud-G01.candidates.0',
      'executionCatalog.unknown',
    ]);
  });

  it('throws SY_CATALOG_NOT_EXECUTABLE when only commands are missing', async () => {
    const raw = validCatalog();
    raw.targets['cloud-b'].runtime.command = ['switchyard-missing-agent'];
    const flag = await write(join(dir, 'c.json'), raw);
    const error = (await resolveCatalog({ cwd: dir, env, flagPath: flag }).catch(
      (e) => e,
    )) as SwitchyardError;
    expect(error.code).toBe('SY_CATALOG_NOT_EXECUTABLE');
    expect(error.problems[0]!.message).toMatch(/target "cloud-b"/);
    await expect(
      resolveCatalog({ cwd: dir, env, flagPath: flag, checkExecutables: false }),
    ).resolves.toBeTruthy();
  });

  it('reports a missing file and bad JSON with its line', async () => {
    const missing = (await resolveCatalog({ cwd: dir, env, flagPath: 'nope.json' }).catch(
      (e) => e,
    )) as SwitchyardError;
    expect(missing.code).toBe('SY_CATALOG_NOT_FOUND');
    expect(missing.file).toBe(join(dir, 'nope.json'));
    const bad = await write(join(dir, 'bad.json'), '{\n  "schema_version": 1,\n  "targets": {,\n}');
    const parse = (await resolveCatalog({ cwd: dir, env, flagPath: bad }).catch(
      (e) => e,
    )) as SwitchyardError;
    expect(parse.code).toBe('SY_CATALOG_PARSE');
    expect(parse.line).toBe(3);
  });
});
