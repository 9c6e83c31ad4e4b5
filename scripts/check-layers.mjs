#!/usr/bin/env node
// Package layers: a package's source (tests aside) imports only packages of a lower layer, or of
// its own layer without a cycle, and only packages it declares in package.json. dpdm (the first
// half of `lint:cycles`) finds cycles between files; it does not follow one package into another.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFilesUnder } from './source-files.mjs';

/** Lowest first. Names not yet created are the planned split of core (ARCHITECTURE.md). */
const LAYERS = [
  ['@switchyard/core'],
  // Helpers that throw core's SwitchyardError: directly above core.
  ['@switchyard/utils'],
  ['@switchyard/catalog', '@switchyard/tasks', '@switchyard/config'],
  ['@switchyard/runner-kit'],
  ['@switchyard/testkit'],
  [
    '@switchyard/store-fs',
    '@switchyard/store-memory',
    '@switchyard/store-postgres',
    '@switchyard/git-isolation',
    'plugins/*',
  ],
  ['@switchyard/engine'],
  ['@switchyard/monitor'],
  ['@switchyard/cli'],
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const IMPORT = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)'(@switchyard\/[\w.-]+)/g;

const packages = [];
for (const top of ['packages', 'plugins']) {
  for (const dir of readdirSync(join(root, top))) {
    const pkgFile = join(root, top, dir, 'package.json');
    if (!statSync(pkgFile, { throwIfNoEntry: false })) continue;
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    const layer = LAYERS.findIndex((names) =>
      names.some((n) => n === pkg.name || (n === 'plugins/*' && top === 'plugins')),
    );
    const declared = new Set(
      Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies }),
    );
    packages.push({ name: pkg.name, dir: join(root, top, dir), layer, declared });
  }
}
const byName = new Map(packages.map((p) => [p.name, p]));
const problems = [];
const edges = new Map();
for (const pkg of packages) {
  if (pkg.layer < 0)
    problems.push(
      `${pkg.name}: not in a layer (add it to LAYERS in ${relative(root, fileURLToPath(import.meta.url))})`,
    );
  const uses = new Set();
  for (const file of sourceFilesUnder(join(pkg.dir, 'src'), /\.(ts|mts|js|mjs)$/)) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (name === pkg.name || uses.has(`${name} ${file}`)) continue;
      uses.add(`${name} ${file}`);
      const target = byName.get(name);
      const where = relative(root, file);
      if (!target)
        problems.push(`${where}: imports ${name}, which is not a package of this repository`);
      else if (target.layer > pkg.layer)
        problems.push(
          `${where}: ${pkg.name} imports ${name}, a higher layer (an import back up the layers)`,
        );
      else if (!pkg.declared.has(name))
        problems.push(`${where}: imports ${name}, not in the dependencies of ${pkg.name}`);
      if (target) edges.set(pkg.name, new Set([...(edges.get(pkg.name) ?? []), name]));
    }
  }
}
// Same-layer imports are allowed only without a cycle between packages.
const state = new Map();
const visit = (name, path) => {
  if (state.get(name) === 'done') return;
  if (state.get(name) === 'open') {
    problems.push(`package cycle: ${[...path.slice(path.indexOf(name)), name].join(' -> ')}`);
    return;
  }
  state.set(name, 'open');
  for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
  state.set(name, 'done');
};
for (const pkg of packages) visit(pkg.name, []);

if (problems.length > 0) {
  console.error(`package layers: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  console.error(
    'Move the shared code down a layer, or pass it in from above (see ARCHITECTURE.md).',
  );
  process.exit(1);
}
console.log(`package layers: ${packages.length} packages, no import runs back up a layer`);
