import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Tests and type declarations are no source of a package. */
const NOT_SOURCE = /\.test\.|\.d\.ts$/;

/**
 * The source files under `dir` whose names match `kind` (TypeScript by default): folders
 * walked recursively, node_modules, dist, tests and type declarations left out.
 */
export function sourceFilesUnder(dir, kind = /\.ts$/, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFilesUnder(path, kind, out);
    else if (kind.test(name) && !NOT_SOURCE.test(name)) out.push(path);
  }
  return out;
}

/** The source files of every package and plugin of the repository at `root` (their src/). */
export function packageSourceFiles(root, kind = /\.ts$/) {
  const out = [];
  for (const top of ['packages', 'plugins']) {
    for (const pkg of readdirSync(join(root, top))) {
      const src = join(root, top, pkg, 'src');
      if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) sourceFilesUnder(src, kind, out);
    }
  }
  return out;
}
