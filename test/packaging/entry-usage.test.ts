import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type Entry,
  entryReports,
  entryResolver,
  importingFiles,
  packageEntries,
  type Read,
  readDisk,
} from './entry-usage.js';

// Each package entry (its `src/index.ts` and the subpath entries of its package.json `exports`)
// lists only what other packages, plugins, the tests in test/ and the scripts import from it:
// a name only its own package uses is internal, and its own modules import it directly.

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Names kept although no file of this repository imports them, each with its reason: the
 * public contract of plugin and store authors that the package READMEs and ARCHITECTURE.md
 * promise.
 */
const PLUGIN =
  'the plugin itself: a config lists the package and the loader calls its default export (ARCHITECTURE.md: plugin authors publish classifiers and runners as npm packages)';
const KEPT: Record<string, Record<string, string>> = {
  '@switchyard/core': {
    ...Object.fromEntries(
      [
        'EscalationLocation',
        'EventPage',
        'IsolationWrite',
        'LeaseHolderIdentity',
        'PutLocatorOptions',
        'PutTaskStateOptions',
        'SourceCheckRequest',
      ].map((n) => [
        n,
        'a parameter or result type of a store or isolation port (packages/core/STORE.md): the public contract a store written outside this repository implements',
      ]),
    ),
    ...Object.fromEntries(
      [
        'AttemptClass',
        'FailoverClass',
        'PluginExport',
        'PluginKind',
        'PluginMeta',
        'definePlugin',
      ].map((n) => [
        n,
        'part of the plugin contract (packages/core/README.md; ARCHITECTURE.md: plugin authors publish classifiers and runners as npm packages)',
      ]),
    ),
    ...Object.fromEntries(
      ['ProblemLocation', 'SwitchyardErrorCode', 'SwitchyardErrorOptions'].map((n) => [
        n,
        'the one error type with codes: what a plugin that throws SwitchyardError passes, and the codes a caller switches on',
      ]),
    ),
  },
  '@switchyard/core/errors': Object.fromEntries(
    ['ERROR_CODES', 'ProblemLocation', 'SwitchyardErrorOptions'].map((n) => [
      n,
      'the error contract entry: every code, and the option types of SwitchyardError, for plugin authors',
    ]),
  ),
  '@switchyard/classifier-codex': { default: PLUGIN },
  '@switchyard/classifier-copilot': { default: PLUGIN },
  '@switchyard/classifier-gemini-cli': { default: PLUGIN },
  '@switchyard/classifier-qwen-code': { default: PLUGIN },
  '@switchyard/runner-jsonl': { default: PLUGIN },
  '@switchyard/runner-native-session': { default: PLUGIN },
  '@switchyard/runner-text': {
    default: PLUGIN,
    AttemptHooks:
      'what the hooks factory of createRunner returns: the contract of runner plugin authors (README, Exports)',
    HookContext:
      'what the hooks factory of createRunner receives: the contract of runner plugin authors (README, Exports)',
  },
  '@switchyard/config': {
    defineConfig:
      'the typed identity users write their switchyard.config.ts with (`export default defineConfig({...})`)',
  },
  '@switchyard/store-fs': {
    openFsStoreAt:
      "opened by name in the store conformance suite's crash child (`child.exportName` of the adapter in conformance.test.ts), on the built entry",
  },
  '@switchyard/git-isolation': {
    commandCheck:
      "imported from the built entry by the apply crash trials' child process (packages/git-isolation/fixtures/apply-child.mjs), which cannot import a module of the package's source",
  },
  '@switchyard/store-postgres': {
    openPostgresStoreAt:
      "opened by name in the store conformance suite's crash child (`child.exportName` of the adapter in test/conformance.test.ts), on the built entry",
  },
  '@switchyard/testkit': Object.fromEntries(
    [
      'runFakeAgentCli',
      'loadScenario',
      'scenarioSchema',
      'formatPrinter',
      'faultOutput',
      'capturedFault',
    ].map((n) => [
      n,
      "the fake agent's programmatic API (README), for the tests of users and plugin authors (ARCHITECTURE.md: testkit)",
    ]),
  ),
  '@switchyard/testkit/store-conformance': Object.fromEntries(
    ['ChildOpener', 'ConformanceRunner', 'StoreAdapter', 'StoreLocation'].map((n) => [
      n,
      'the adapter and runner a store author passes to describeStoreConformance (README: the suite every store behind the core ports must pass)',
    ]),
  ),
  '@switchyard/classifier-generic': {
    eventCandidates:
      'a spec helper of createAgentClassifier for classifier plugin authors, beside the eventAndStderrCandidates the bundled plugins use (README, Exports)',
    parseClassifierOptions:
      'reads the options a config passes to a classifier plugin: the contract of classifier plugin authors (README, Exports)',
  },
};

/** Whole-entry uses whose names cannot be read from the source (`file:line` → why allowed). */
const OPAQUE_ALLOWED: Record<string, string> = {};

describe('each package entry exports only what others import', () => {
  const entries = packageEntries(root);
  const entryOf = entryResolver(entries, root);
  const files = importingFiles(root).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
  const { reports, opaque } = entryReports(entries, files, readDisk, entryOf);

  it('finds every package and its subpath entries', () => {
    expect(entries.length).toBeGreaterThan(23);
    expect(entries.map((e) => e.key)).toContain('@switchyard/core/dry-run');
    expect(entries.map((e) => e.key)).toContain('@switchyard/core/lifecycle');
    expect(entries.map((e) => e.key)).toContain('@switchyard/testkit/store-conformance');
  });

  it.each(reports.map((r) => [r.entry.key, r] as const))('%s', (key, report) => {
    const kept = KEPT[key] ?? {};
    const unused = report.unused.filter((n) => !(n in kept));
    expect(
      unused,
      `${key} (${relative(root, report.entry.source)}) exports names no other package, plugin, test or script imports: drop them from the entry, or keep them in KEPT of test/packaging/entry-usage.test.ts with a reason`,
    ).toEqual([]);
    const exported = new Set(report.exported.map((x) => x.name));
    expect(
      Object.keys(kept).filter((n) => !exported.has(n)),
      `${key}: KEPT names the entry no longer exports`,
    ).toEqual([]);
  });

  it('no entry is used whole where its names cannot be read', () => {
    const found = opaque.map((o) => `${relative(root, o.file)}:${o.line} ${o.key}: ${o.what}`);
    expect(found.filter((f) => !((f.split(' ')[0] as string) in OPAQUE_ALLOWED))).toEqual([]);
  });
});

describe('the entry usage check', () => {
  /** A small repository in memory: two packages, `a` (with a subpath entry) and `b`. */
  const fixture = (files: Record<string, string>) => {
    const all: Record<string, string> = {
      '/r/packages/a/src/index.ts': [
        "export { used, unused } from './lib.js';",
        "export type { Shape, Unshaped } from './types.js';",
        "export * from './more.js';",
        'export default function plugin() {}',
      ].join('\n'),
      '/r/packages/a/src/lib.ts': 'export const used = 1;\nexport const unused = 2;',
      '/r/packages/a/src/types.ts': 'export interface Shape {}\nexport type Unshaped = 1;',
      '/r/packages/a/src/more.ts':
        'export function fromStar() {}\nexport class StarUnused {}\nexport default 3;',
      '/r/packages/a/src/light.ts': 'export const light = 1;\nexport const heavy = 2;',
      '/r/packages/b/src/index.ts': 'export const b = 1;',
      ...files,
    };
    const read: Read = (file) => all[file];
    const entry = (pkg: string, key: string, source: string, dist: string): Entry => ({
      key,
      pkg,
      dir: `/r/packages/${pkg.slice('@switchyard/'.length)}`,
      source,
      dist,
    });
    const entries = [
      entry('@switchyard/a', '@switchyard/a', '/r/packages/a/src/index.ts', 'dist/index.js'),
      entry('@switchyard/a', '@switchyard/a/light', '/r/packages/a/src/light.ts', 'dist/light.js'),
      entry('@switchyard/b', '@switchyard/b', '/r/packages/b/src/index.ts', 'dist/index.js'),
    ];
    const entryOf = entryResolver(entries, '/r');
    const sources = Object.entries(all)
      .filter(
        ([file]) => !file.includes('/src/') || file.includes('/b/') || file.includes('.test.'),
      )
      .map(([file, text]) => ({ file, text }));
    const { reports, opaque } = entryReports(entries, sources, read, entryOf);
    const unusedOf = (key: string) => reports.find((r) => r.entry.key === key)?.unused;
    return { unusedOf, opaque, reports };
  };
  const ALL_OF_A = ['Shape', 'StarUnused', 'Unshaped', 'default', 'fromStar', 'unused', 'used'];

  it('catches an unused export and accepts a used one', () => {
    const { unusedOf } = fixture({ '/r/test/x.test.ts': "import { used } from '@switchyard/a';" });
    expect(unusedOf('@switchyard/a')).toEqual(ALL_OF_A.filter((n) => n !== 'used'));
  });

  it('counts type imports, default imports, renamed imports and import types', () => {
    const { unusedOf } = fixture({
      '/r/packages/b/src/use.ts': [
        "import type { Shape } from '@switchyard/a';",
        "import plugin, { type Unshaped as U, used as u } from '@switchyard/a';",
        "type F = typeof import('@switchyard/a').fromStar;",
      ].join('\n'),
    });
    expect(unusedOf('@switchyard/a')).toEqual(['StarUnused', 'unused']);
  });

  it('does not count a package importing its own entry', () => {
    const { unusedOf } = fixture({
      '/r/packages/a/src/x.test.ts': "import { used } from '@switchyard/a';",
    });
    expect(unusedOf('@switchyard/a')).toEqual(ALL_OF_A);
  });

  it('counts the properties read on a namespace, not the whole entry', () => {
    const { unusedOf, opaque } = fixture({
      '/r/test/ns.test.ts': [
        "import * as a from '@switchyard/a';",
        'a.used();',
        "const s: a.Shape = a['fromStar'];",
        'const { unused } = a;',
        'const other = { a: 1 }; other.a;',
      ].join('\n'),
    });
    expect(unusedOf('@switchyard/a')).toEqual(['StarUnused', 'Unshaped', 'default']);
    expect(opaque).toEqual([]);
  });

  it('reports a namespace passed on whole, and counts it as a use of every name', () => {
    const { unusedOf, opaque } = fixture({
      '/r/packages/b/src/ns.ts': "import * as a from '@switchyard/a';\nregister(a);",
    });
    expect(unusedOf('@switchyard/a')).toEqual([]);
    expect(opaque.map((o) => [o.key, o.file, o.line])).toEqual([
      ['@switchyard/a', '/r/packages/b/src/ns.ts', 2],
    ]);
  });

  it('reads dynamic imports: destructured, bound, read as a property, through .then and .catch', () => {
    const { unusedOf, opaque } = fixture({
      '/r/packages/b/src/dyn.ts': [
        'async function f() {',
        "  const { used } = await import('@switchyard/a');",
        "  const a = await import('@switchyard/a');",
        '  a.fromStar();',
        "  const p = (await import('@switchyard/a')).default;",
        "  await import('@switchyard/a').then((m) => m.Shape);",
        "  const { unused } = await import('@switchyard/a').catch(() => process.exit(2));",
        '}',
        'function g(a: number) { return a; }',
      ].join('\n'),
    });
    expect(unusedOf('@switchyard/a')).toEqual(['StarUnused', 'Unshaped']);
    expect(opaque).toEqual([]);
  });

  it('reads the entries a script imports by path (built or source), and the scripts it writes into strings', () => {
    const { unusedOf } = fixture({
      '/r/test/bench/x.mjs': [
        "const kit = join(here, '..', '..', 'packages', 'a', 'dist', 'index.js');",
        'const { used } = await import(kit);',
        "const { fromStar } = await import(new URL('../../packages/a/dist/index.js', import.meta.url).href);",
        "const { light } = await import(join(root, 'plugins/p/node_modules/@switchyard/a/dist/light.js'));",
        'const CHILD = `',
        "import { unused } from ${JSON.stringify(join(root, 'packages/a/dist/index.js'))};",
        "import { Shape } from '../../packages/a/src/index.js';",
        '`;',
      ].join('\n'),
    });
    expect(unusedOf('@switchyard/a')).toEqual(['StarUnused', 'Unshaped', 'default']);
    expect(unusedOf('@switchyard/a/light')).toEqual(['heavy']);
  });

  it('counts a name re-exported by another package, and follows export * across packages', () => {
    const { unusedOf, opaque } = fixture({
      '/r/packages/b/src/index.ts':
        "export { used } from '@switchyard/a';\nexport * from './star.js';",
      '/r/packages/b/src/star.ts': "export * from '@switchyard/a/light';",
      '/r/test/y.test.ts': "import { heavy } from '@switchyard/b';",
    });
    expect(unusedOf('@switchyard/a')).toEqual(ALL_OF_A.filter((n) => n !== 'used'));
    // b's entry passes on a/light: a name used through b counts in a/light
    expect(unusedOf('@switchyard/a/light')).toEqual(['light']);
    expect(unusedOf('@switchyard/b')).toEqual(['light', 'used']);
    expect(opaque).toEqual([]);
  });

  it('reports export * of another package outside an entry, as a use of every name', () => {
    const { unusedOf, opaque } = fixture({
      '/r/packages/b/src/orphan.ts': "export * from '@switchyard/a/light';",
    });
    expect(unusedOf('@switchyard/a/light')).toEqual([]);
    expect(opaque.map((o) => [o.key, o.file])).toEqual([
      ['@switchyard/a/light', '/r/packages/b/src/orphan.ts'],
    ]);
  });
});
