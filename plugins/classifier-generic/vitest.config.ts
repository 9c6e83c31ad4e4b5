import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/classifier-generic', include: ['src/**/*.test.ts'] },
});
