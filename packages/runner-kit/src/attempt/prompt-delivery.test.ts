import { describe, expect, it } from 'vitest';
import { MAX_ARGV_PROMPT_BYTES, planPromptDelivery } from './prompt-delivery.js';

const big = 'p'.repeat(MAX_ARGV_PROMPT_BYTES + 1);
const runner = { name: 'runner-jsonl', channels: { argv: true as const, stdin: true } };

describe('planPromptDelivery', () => {
  it('keeps a prompt within the limit in argv', () => {
    const plan = planPromptDelivery({
      argv: ['agent', '-p', 'short'],
      prompt: 'short',
      agent: 'x',
      agentInput: undefined,
      runner,
    });
    expect(plan).toEqual({ argv: ['agent', '-p', 'short'], stdin: false });
  });

  it('drops or replaces the prompt element when the CLI reads stdin', () => {
    const drop = planPromptDelivery({
      argv: ['claude', '-p', big, '--model', 'm'],
      prompt: big,
      agent: 'claude-code',
      agentInput: { stdin: { argvPrompt: null } },
      runner,
    });
    expect(drop).toEqual({ argv: ['claude', '-p', '--model', 'm'], stdin: true });
    const dash = planPromptDelivery({
      argv: ['codex', 'exec', big],
      prompt: big,
      agent: 'codex',
      agentInput: { stdin: { argvPrompt: '-' } },
      runner,
    });
    expect(dash).toEqual({ argv: ['codex', 'exec', '-'], stdin: true });
  });

  it('refuses, saying why: no declared channel, a runner without stdin, a prompt inside other text', () => {
    const base = { prompt: big, agent: 'copilot', runner };
    expect(planPromptDelivery({ ...base, argv: ['c', big], agentInput: undefined })).toEqual({
      refused: expect.stringMatching(/agent "copilot" declares no other way/),
    });
    expect(
      planPromptDelivery({
        ...base,
        argv: ['c', big],
        agentInput: { stdin: { argvPrompt: null } },
        runner: { name: 'mine', channels: undefined },
      }),
    ).toEqual({ refused: expect.stringMatching(/runner mine cannot feed/) });
    expect(
      planPromptDelivery({
        ...base,
        argv: ['c', `--prompt=${big}`],
        agentInput: { stdin: { argvPrompt: null } },
      }),
    ).toEqual({ refused: expect.stringMatching(/argv\[1\] holds it inside other text/) });
  });
});
