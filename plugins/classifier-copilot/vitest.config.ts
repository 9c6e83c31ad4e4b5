import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/classifier-copilot', include: ['src/**/*.test.ts'] },
});
