import { defineConfig } from 'tsup';

const common = { format: ['esm'] as const, target: 'node22' };
// The fake agent's bin is built on its own, with zod bundled in: it starts once per agent run
// of every test and demo, and resolving zod's hundreds of ESM files was about half of its
// start-up (one bundled file loads in less than half the time). The library entries keep
// zod as a dependency.
const fakeAgentBin = ['fake-agent-bin.js', 'fake-agent-bin.js.map'];

export default defineConfig([
  {
    ...common,
    entry: {
      index: 'src/index.ts',
      'mock-provider-bin': 'src/mock-provider-bin.ts',
      // the store conformance suite and the child process its crash case kills
      'store-conformance': 'src/store-conformance/index.ts',
      'store-conformance-child': 'src/store-conformance/crash-child.ts',
      // a throwaway PostgreSQL cluster for the PostgreSQL store's tests
      postgres: 'src/postgres/index.ts',
    },
    dts: {
      entry: {
        index: 'src/index.ts',
        'store-conformance': 'src/store-conformance/index.ts',
        postgres: 'src/postgres/index.ts',
      },
    },
    sourcemap: true,
    // Both builds write dist/ at once: this one leaves the bin's files alone.
    clean: fakeAgentBin.map((file) => `!${file}`),
  },
  {
    ...common,
    entry: { 'fake-agent-bin': 'src/fake-agent-bin.ts' },
    noExternal: ['zod'],
    // No source map: it would add 1.5 MB of zod's to the package the CLI installs for its demo.
  },
]);
