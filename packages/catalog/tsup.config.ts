import { defineConfig } from 'tsup';

export default defineConfig({
  // test-catalogs: a valid catalog for other packages' tests.
  entry: { index: 'src/index.ts', 'test-catalogs': 'src/test-catalogs.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
