import { defineConfig } from 'tsup';

export default defineConfig({
  // the spawn helper runs as its own small process (see spawn-client.ts)
  entry: ['src/index.ts', 'src/spawn-helper.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
