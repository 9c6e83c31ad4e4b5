import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'fake-agent-bin': 'src/fake-agent-bin.ts',
    'mock-provider-bin': 'src/mock-provider-bin.ts',
    // the store conformance suite and the child process its crash case kills
    'store-conformance': 'src/store-conformance/index.ts',
    'store-conformance-child': 'src/store-conformance/crash-child.ts',
    // a throwaway PostgreSQL cluster for the PostgreSQL store's tests
    postgres: 'src/postgres/index.ts',
  },
  format: ['esm'],
  dts: {
    entry: {
      index: 'src/index.ts',
      'store-conformance': 'src/store-conformance/index.ts',
      postgres: 'src/postgres/index.ts',
    },
  },
  clean: true,
  target: 'node22',
  sourcemap: true,
});
