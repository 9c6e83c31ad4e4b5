import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/fake-agent-bin.ts', 'src/mock-provider-bin.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  target: 'node22',
  sourcemap: true,
});
