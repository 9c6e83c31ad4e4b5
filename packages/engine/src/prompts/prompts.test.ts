import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwitchyardError } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { buildPrompt, type PromptContext } from './build-prompt.js';
import { loadPromptTemplates, PROMPT_TEMPLATE_NAMES } from './templates.js';

const templatesDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../assets/prompts');
const templates = loadPromptTemplates({ templatesDir });

const context = (role: PromptContext['role']): PromptContext => ({
  role,
  attemptId: 'att-1',
  task: 'g/t',
  planLoop: 2,
  workspace: '/abs/ws',
  taskDir: '/abs/ws/agent-task/g/t',
  plan: '/abs/ws/agent-task/g/t/PLAN-2.md',
  writeSet: ['src/a.ts', 'README.md'],
});

describe('prompt templates', () => {
  it('ship one file per template and hard-code no agent, model, provider or language', () => {
    expect(readdirSync(templatesDir).sort()).toEqual(
      PROMPT_TEMPLATE_NAMES.map((n) => `${n}.md`).sort(),
    );
    const banned =
      /claude|codex|gemini|qwen|copilot|openai|anthropic|ollama|llama|gpt|typescript|javascript|python|rust|english|WORK_LOG/i;
    for (const name of PROMPT_TEMPLATE_NAMES) expect(templates[name]).not.toMatch(banned);
  });

  it('start every role prompt with the boundary and carry absolute artifact paths', () => {
    const worker = buildPrompt({ templates, context: context('worker') });
    const selfcheck = buildPrompt({
      templates,
      context: context('selfcheck'),
      openItems: ['line 9: wire it'],
    });
    const review = buildPrompt({
      templates,
      context: context('review'),
      review: {
        reviewFile: '/abs/ws/agent-task/g/t/CODE_REVIEW-2.md',
        nextPlan: '/abs/ws/agent-task/g/t/PLAN-3.md',
        loopsLeft: 3,
      },
    });
    for (const prompt of [worker, selfcheck, review]) {
      expect(prompt.startsWith('# Dispatcher boundary')).toBe(true);
      expect(prompt).toContain('`switchyard validate-plan <PLAN file>`');
      expect(prompt).toContain("repository's own language");
      expect(prompt).toContain('/abs/ws/agent-task/g/t/PLAN-2.md');
      expect(prompt).not.toMatch(/\{\{/);
    }
    expect(worker).toContain('  - `src/a.ts`\n  - `README.md`');
    expect(selfcheck).toContain('  - line 9: wire it');
    expect(review).toContain('/abs/ws/agent-task/g/t/CODE_REVIEW-2.md');
    expect(review).toContain('/abs/ws/agent-task/g/t/PLAN-3.md for plan loop\n3');
    expect(review).toContain('Plan loops left after this one: 3.');
  });

  it('appends the failover context and the correction', () => {
    const prompt = buildPrompt({
      templates,
      context: context('worker'),
      failover: {
        priorTarget: 'cloud-a',
        failureClass: 'provider-quota',
        priorLocator: '/abs/ws/agent-task/.switchyard/attempts/x/locator.json',
        priorNormalizedOutput: '/abs/ws/agent-task/.switchyard/attempts/x/normalized-output.log',
        priorStream: '/abs/ws/agent-task/.switchyard/attempts/x/stream.log',
      },
      correction: {
        source: 'gate',
        summary: 'the definition-of-done command exited 1',
        evidence: ['FAIL a.test'],
        file: '/abs/gate.log',
      },
    });
    expect(prompt).toContain('ran on target cloud-a and ended with\n`provider-quota`');
    expect(prompt).toContain('attempts/x/locator.json');
    expect(prompt).toContain('```\nFAIL a.test\n```');
    expect(prompt).toContain('Full output: /abs/gate.log');
    expect(prompt.indexOf('# Context from the previous attempt')).toBeLessThan(
      prompt.indexOf('# Correction'),
    );
  });

  it('applies project overrides and reports every bad override at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-prompts-'));
    writeFileSync(join(dir, 'worker.md'), 'Do {{plan}} now.\n');
    const custom = loadPromptTemplates({
      templatesDir,
      configDir: dir,
      overrides: { worker: 'worker.md' },
    });
    const prompt = buildPrompt({ templates: custom, context: context('worker') });
    expect(prompt.startsWith('# Dispatcher boundary')).toBe(true);
    expect(prompt).toContain('Do /abs/ws/agent-task/g/t/PLAN-2.md now.');

    writeFileSync(join(dir, 'review.md'), 'line one\nwrite {{verdictFile}}\n');
    try {
      loadPromptTemplates({
        templatesDir,
        configDir: dir,
        configFile: join(dir, 'switchyard.config.json'),
        overrides: {
          boundary: 'b.md',
          reviewer: 'x.md',
          review: 'review.md',
          selfcheck: 'missing.md',
        },
      });
      expect.unreachable();
    } catch (error) {
      expect(SwitchyardError.is(error) && error.code).toBe('SY_CONFIG_INVALID');
      const problems = (error as SwitchyardError).problems;
      expect(problems.map((p) => p.path ?? `${p.file}:${p.line}`)).toEqual([
        'prompts.boundary',
        'prompts.reviewer',
        'prompts.selfcheck',
        `${join(dir, 'review.md')}:2`,
      ]);
      expect(problems[3]!.message).toBe(
        'unknown placeholder {{verdictFile}} in the review prompt template',
      );
    }
    expect(readFileSync(join(templatesDir, 'boundary.md'), 'utf8')).toContain('{{role}}');
  });
});
