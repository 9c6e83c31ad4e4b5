import { cp } from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
  // The bundled catalog, JSON Schemas and prompt templates ship inside the package
  // (`assetPath` finds them next to the code).
  onSuccess: async () => {
    await cp('../../assets', 'dist/assets', { recursive: true });
  },
});
