import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/runner-jsonl', include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
