import { defineConfig } from 'tsup';

export default defineConfig({
  // Subpath entries (package.json exports) load only what a command needs; shared code is
  // split into chunks, so every entry sees the same modules.
  entry: {
    index: 'src/index.ts',
    errors: 'src/errors.ts',
    'dry-run': 'src/dry-run-entry.ts',
    lifecycle: 'src/lifecycle-entry.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
