import { defineConfig } from 'tsup';

export default defineConfig({
  // dry-run: a light entry for `switchyard run --dry-run` (loading a workspace, quoting argv);
  // plan-worker: the thread entry of the plan parse pool, loaded next to the bundle. Shared
  // code is split into chunks, so every entry sees the same modules.
  entry: {
    index: 'src/index.ts',
    'dry-run': 'src/dry-run-entry.ts',
    'plan-worker': 'src/workspace/plan-worker.ts',
  },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  sourcemap: true,
});
