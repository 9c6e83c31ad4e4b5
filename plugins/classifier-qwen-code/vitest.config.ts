import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/classifier-qwen-code', include: ['src/**/*.test.ts'] },
});
