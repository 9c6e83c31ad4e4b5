import { readFileSync } from 'node:fs';
import { validateCatalog } from '@switchyard/catalog';
import { assetPath } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { deriveCatalog } from '../src/commands/catalog-derive.js';

const bundled = () => {
  const raw = JSON.parse(readFileSync(assetPath('default-execution-catalog.json'), 'utf8'));
  const { catalog } = validateCatalog(raw, { checkExecutables: false });
  return catalog!;
};

describe('deriveCatalog', () => {
  it('returns undefined when nothing is available', () => {
    expect(deriveCatalog(bundled(), () => false)).toBeUndefined();
  });

  it('keeps everything when everything is available (minus $schema)', () => {
    const source = bundled();
    const derived = deriveCatalog(source, () => true)!;
    expect(derived.dropped).toEqual([]);
    expect(derived.filled).toEqual([]);
    const { $schema: _s, ...rest } = source;
    expect(derived.catalog).toEqual(rest);
  });

  it('drops missing candidates in order and refills windows by execution class', () => {
    const derived = deriveCatalog(
      bundled(),
      (_id, t) => t.agent === 'gemini-cli' || t.model === 'gpt-oss:20b',
    )!;
    expect(derived.kept).toEqual(['gemini-pro', 'codex-oss']);
    const { routes } = derived.catalog;
    expect(routes.worker['cloud-G01'].candidates).toEqual(['gemini-pro']);
    expect(routes.worker['local-G01'].candidates).toEqual(['codex-oss']);
    expect(routes.review['cloud-G05'].windows?.map((w) => w.candidates)).toEqual([
      ['gemini-pro'],
      ['gemini-pro'],
    ]);
    expect(derived.filled).toEqual([]);
    // The result is a valid catalog with the same windows.
    expect(validateCatalog(derived.catalog, { checkExecutables: false }).problems).toEqual([]);
  });

  it('falls back to any available target when no target of the class is left', () => {
    const derived = deriveCatalog(bundled(), (id) => id === 'codex-oss')!;
    expect(derived.catalog.routes.worker['cloud-G08'].candidates).toEqual(['codex-oss']);
    expect(derived.filled).toContain('worker.cloud-G08');
    expect(derived.filled).toContain('worker.cloud-G05.windows.0');
  });
});
