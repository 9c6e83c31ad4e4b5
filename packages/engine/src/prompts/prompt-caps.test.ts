import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildPrompt } from './build-prompt.js';
import { capLines, capText } from './cap-text.js';
import { loadPromptTemplates } from './templates.js';

const templatesDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../assets/prompts');
const templates = loadPromptTemplates({ templatesDir });

// Linux refuses a single argv element over 128 KiB (MAX_ARG_STRLEN): `spawn E2BIG`.
const ARGV_ELEMENT_LIMIT = 128 * 1024;

describe('prompts stay within argv limits', () => {
  it('3,500 write-set entries and a 1 MB line of gate output still make a prompt under 64 KiB', () => {
    const writeSet = Array.from({ length: 3500 }, (_, i) => `src/module-${i}/file-${i}.ts`);
    const line = `START${'x'.repeat(1024 * 1024)}END-OF-GATE-OUTPUT`;
    const prompt = buildPrompt({
      templates,
      context: {
        role: 'worker',
        attemptId: 'a1',
        task: 'g/t',
        planLoop: 1,
        workspace: '/ws',
        taskDir: '/ws/agent-task/g/t',
        plan: '/ws/agent-task/g/t/PLAN.md',
        writeSet,
      },
      correction: {
        source: 'gate',
        summary: 'the Definition of Done failed',
        evidence: [line, ...Array.from({ length: 5000 }, (_, i) => `log line ${i}`)],
      },
    });
    expect(Buffer.byteLength(prompt)).toBeLessThan(64 * 1024);
    expect(Buffer.byteLength(prompt)).toBeLessThan(ARGV_ELEMENT_LIMIT);
    expect(prompt).toContain('src/module-0/file-0.ts');
    expect(prompt).toContain('…and 3300 more (see /ws/agent-task/g/t/PLAN.md)');
    expect(prompt).toContain('START');
    expect(prompt).toContain('END-OF-GATE-OUTPUT');
    expect(prompt).toMatch(/characters cut/);
    expect(prompt).toContain('log line 4999'); // the tail of the output is kept
    expect(prompt).toMatch(/lines cut/);
  });

  it('capText keeps head and tail and says how much was cut', () => {
    expect(capText('short', 10)).toBe('short');
    const capped = capText('a'.repeat(50) + 'b'.repeat(50), 40);
    expect(capped.length).toBeLessThanOrEqual(40);
    expect(capped).toMatch(/^a+ …\[60 characters cut\]… b+$/);
  });

  it('capLines keeps the first and the last lines', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`);
    const capped = capLines(lines, 100, 200);
    expect(capped[0]).toBe('line 0');
    expect(capped.at(-1)).toBe('line 999');
    expect(capped.join('\n').length).toBeLessThanOrEqual(200);
  });
});
