import { defineConfig } from 'tsup';

export default defineConfig({
  // dry-run: a light entry for `switchyard run --dry-run`, so it does not load the dispatcher;
  // shared code is split into chunks, so both entries see the same modules.
  entry: { index: 'src/index.ts', 'dry-run': 'src/dry-run-entry.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
