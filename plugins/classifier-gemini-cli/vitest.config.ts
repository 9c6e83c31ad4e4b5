import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: '@switchyard/classifier-gemini-cli', include: ['src/**/*.test.ts'] },
});
