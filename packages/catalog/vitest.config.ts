import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/catalog', include: ['src/**/*.test.ts'] },
});
