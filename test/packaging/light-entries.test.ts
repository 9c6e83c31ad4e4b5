import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const IMPORT = /(?:from|import)\s*["']([^"']+)["']/g;

/** Light packages whose root entry is followed (their own imports are checked too). */
const LIGHT_ROOTS: Record<string, string> = {
  '@switchyard/utils': 'packages/utils/dist/index.js',
};

/** The packages a built entry loads, following its own chunks (static imports only). */
function packagesLoadedBy(file: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(file)) return out;
  seen.add(file);
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    if (spec.startsWith('./')) {
      for (const p of packagesLoadedBy(join(dirname(file), spec), seen)) out.add(p);
    } else if (spec in LIGHT_ROOTS) {
      for (const p of packagesLoadedBy(join(root, LIGHT_ROOTS[spec] as string), seen)) out.add(p);
    } else if (spec.startsWith('@switchyard/')) out.add(spec);
  }
  return out;
}

// `switchyard run --dry-run` loads the light entries only: the dispatcher, review parsing,
// prompts and plugins (the whole of core's root entry) stay unloaded.
describe('the dry run loads the light entries only', () => {
  it.each([
    'packages/core/dist/dry-run.js',
    'packages/core/dist/lifecycle.js',
    'packages/runner-kit/dist/dry-run.js',
    'packages/store-fs/dist/read.js',
    'packages/catalog/dist/dry-run.js',
    'packages/engine/dist/dry-run.js',
  ])('%s loads no root entry of another package', (entry) => {
    const loaded = [...packagesLoadedBy(join(root, entry))];
    expect(
      loaded.filter((spec) => !/^@switchyard\/[\w-]+\/(dry-run|errors|lifecycle)$/.test(spec)),
    ).toEqual([]);
  });
});
