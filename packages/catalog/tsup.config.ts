import { defineConfig } from 'tsup';

export default defineConfig({
  // test-catalogs: a valid catalog for other packages' tests; dry-run: a light entry for
  // `switchyard run --dry-run` (shared code is split into chunks, so entries share modules).
  entry: {
    index: 'src/index.ts',
    'dry-run': 'src/dry-run-entry.ts',
    'test-catalogs': 'src/test-catalogs.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
