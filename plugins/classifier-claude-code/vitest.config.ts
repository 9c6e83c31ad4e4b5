import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/classifier-claude-code', include: ['src/**/*.test.ts'] },
});
