import { defineConfig } from 'tsup';

export default defineConfig({
  // The light `dry-run` entry loads only what the dry run needs; shared code is split into
  // chunks, so both entries see the same modules.
  entry: { index: 'src/index.ts', 'dry-run': 'src/dry-run-entry.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
