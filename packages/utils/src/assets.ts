import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARKER = join('assets', 'default-execution-catalog.json');
let assetsDir: string | undefined;

/**
 * The directory holding switchyard's bundled assets. In a build they sit next to the code
 * (`dist/assets`, copied there by the utils build); when running from sources they are the
 * repository's `/assets`. Either way: walk up from this module until `assets/` is found.
 */
function findAssetsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, MARKER))) return join(dir, 'assets');
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(`switchyard assets not found above ${fileURLToPath(import.meta.url)}`);
    }
    dir = parent;
  }
}

/** Absolute path of a bundled asset, e.g. `assetPath('default-execution-catalog.json')`. */
export function assetPath(...segments: string[]): string {
  assetsDir ??= findAssetsDir();
  return join(assetsDir, ...segments);
}
