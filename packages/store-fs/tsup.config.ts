import { defineConfig } from 'tsup';

export default defineConfig({
  // read: the store opened for reading, a light entry for the dry run and shell completion.
  entry: { index: 'src/index.ts', read: 'src/read-entry.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
