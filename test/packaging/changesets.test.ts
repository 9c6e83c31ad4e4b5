import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const changesetDir = join(root, '.changeset');

/** The names of the workspace's packages (what a changeset may bump). */
function workspacePackages(): Set<string> {
  const names = new Set<string>();
  for (const top of ['packages', 'plugins']) {
    for (const dir of readdirSync(join(root, top))) {
      try {
        names.add(JSON.parse(readFileSync(join(root, top, dir, 'package.json'), 'utf8')).name);
      } catch {
        // a folder without a package.json is not a package
      }
    }
  }
  return names;
}

// `changeset version` refuses the whole release on one malformed file, so a changeset whose
// front matter was reformatted (a heading instead of `"pkg": bump`, a blank first line) or
// that names a package not in the workspace is caught here, not at release time.
describe('changesets', () => {
  const packages = workspacePackages();
  const files = readdirSync(changesetDir).filter((f) => f.endsWith('.md') && f !== 'README.md');

  it.each(files)('%s has front matter naming workspace packages with a bump', (file) => {
    const text = readFileSync(join(changesetDir, file), 'utf8');
    const match = /^---\n((?:["'][^"'\n]+["']: (?:major|minor|patch)\n)+)---\n/.exec(text);
    expect(match, `${file} must start with ---, lines "pkg": bump, then ---`).not.toBeNull();
    const named = [...(match?.[1] ?? '').matchAll(/["']([^"']+)["']:/g)].map((m) => m[1]);
    expect(named.filter((name) => !packages.has(name as string))).toEqual([]);
  });
});
