import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/classifier-codex', include: ['src/**/*.test.ts'] },
});
