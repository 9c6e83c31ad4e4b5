import { cp } from 'node:fs/promises';
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm'],
    dts: true,
    clean: false,
    target: 'node22',
    sourcemap: true,
    // The page's stylesheet is served inline from dist next to the bundle.
    onSuccess: async () => {
      await cp('src/client/page.css', 'dist/page.css');
    },
  },
  {
    // The page script: one self-contained browser bundle, inlined into the page (works offline).
    entry: { page: 'src/client/page.ts' },
    format: ['iife'],
    platform: 'browser',
    target: 'es2022',
    minify: true,
    clean: false,
    dts: false,
  },
]);
