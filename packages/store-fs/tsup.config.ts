import { defineConfig } from 'tsup';

export default defineConfig({
  // dry-run: a light entry for `switchyard run --dry-run` (task states and claims by path).
  entry: { index: 'src/index.ts', 'dry-run': 'src/dry-run-entry.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
