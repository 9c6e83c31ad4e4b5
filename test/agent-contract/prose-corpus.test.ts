// Prose is never failover evidence, on any exit code: every sample of the corpus, printed the
// way each agent CLI prints an assistant message or a tool's output (text and JSON modes), on
// exit 0 and on a failed exit, goes through the real classifier chain of that agent.
import { type ClassifierPlugin, isFailoverClass } from '@switchyard/core';
import { classifyEvidence, collectEvidence } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import { claudeCodeClassifier } from '../../plugins/classifier-claude-code/src/classifier.js';
import { codexClassifier } from '../../plugins/classifier-codex/src/classifier.js';
import { copilotClassifier } from '../../plugins/classifier-copilot/src/classifier.js';
import { geminiCliClassifier } from '../../plugins/classifier-gemini-cli/src/classifier.js';
import { genericClassifier } from '../../plugins/classifier-generic/src/generic-classifier.js';
import { qwenCodeClassifier } from '../../plugins/classifier-qwen-code/src/classifier.js';
import { type ProseSample, proseCorpus } from './prose-corpus.js';

const CHAIN: ClassifierPlugin[] = [
  claudeCodeClassifier(),
  codexClassifier(),
  geminiCliClassifier(),
  qwenCodeClassifier(),
  copilotClassifier(),
  genericClassifier(),
];
const ctx = { endedAt: new Date('2026-11-30T12:00:00Z'), timeZone: 'UTC' };
const j = (value: unknown) => JSON.stringify(value);

type Shape = (sample: ProseSample, failed: boolean) => string[];

/** How each CLI's JSON stream carries an assistant message and a tool's output. */
const JSON_SHAPES: Record<string, Shape> = {
  'claude-code': (s, failed) => [
    j({ type: 'system', subtype: 'init', session_id: 's1' }),
    j({ type: 'assistant', message: { content: [{ type: 'text', text: s.text }] } }),
    j({
      type: 'user',
      message: { content: [{ type: 'tool_result', content: s.text, is_error: true }] },
    }),
    j({
      type: 'result',
      subtype: failed ? 'error_max_turns' : 'success',
      is_error: failed,
      result: s.text,
    }),
  ],
  'qwen-code': (s, failed) => [
    j({ type: 'system', subtype: 'init', session_id: 's1' }),
    j({ type: 'assistant', message: { content: [{ type: 'text', text: s.text }] } }),
    j({
      type: 'result',
      subtype: failed ? 'error_during_execution' : 'success',
      is_error: failed,
      result: s.text,
    }),
  ],
  codex: (s, failed) => [
    j({ type: 'thread.started', thread_id: 't1' }),
    j({
      type: 'item.completed',
      item: { type: 'command_execution', aggregated_output: s.text, exit_code: 1 },
    }),
    j({ type: 'item.completed', item: { type: 'agent_message', text: s.text } }),
    ...(failed ? [] : [j({ type: 'turn.completed', usage: { input_tokens: 1 } })]),
  ],
  'gemini-cli': (s, failed) => [
    j({ type: 'init', session_id: 's1' }),
    j({ type: 'tool_result', status: 'error', output: s.text }),
    j({ type: 'message', role: 'assistant', content: s.text }),
    j({ type: 'result', status: failed ? 'error' : 'success', stats: {} }),
  ],
  copilot: (s, failed) => [
    j({
      type: 'tool.execution_complete',
      data: { success: false, result: { content: s.text } },
    }),
    j({ type: 'assistant.message', data: { content: s.text } }),
    j({ type: 'result', sessionId: 's1', exitCode: failed ? 1 : 0 }),
  ],
  'some-cli': (s) => [
    j({ type: 'message', role: 'assistant', content: s.text }),
    j({ type: 'tool', output: s.text }),
  ],
};

interface Run {
  name: string;
  agent: string;
  outputFormat: 'text' | 'jsonl';
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Every sample × agent × (text on stdout, text on stderr, JSON) × (exit 0, exit 1). */
function runs(): Run[] {
  const out: Run[] = [];
  for (const sample of proseCorpus()) {
    for (const [agent, shape] of Object.entries(JSON_SHAPES)) {
      for (const exitCode of [0, 1]) {
        const base = { agent, exitCode };
        const tag = `${agent} exit ${exitCode} ${sample.name}`;
        out.push({
          ...base,
          name: `${tag} text/stdout`,
          outputFormat: 'text',
          stdout: sample.text,
          stderr: '',
        });
        out.push({
          ...base,
          name: `${tag} text/stderr`,
          outputFormat: 'text',
          stdout: '',
          stderr: sample.text,
        });
        out.push({
          ...base,
          name: `${tag} json`,
          outputFormat: 'jsonl',
          stdout: shape(sample, exitCode !== 0).join('\n'),
          stderr: exitCode === 0 ? '' : sample.text,
        });
      }
    }
  }
  return out;
}

describe('prose is never failover evidence', () => {
  const corpus = proseCorpus();

  it('has at least 300 distinct outputs from every kind of source', () => {
    const outputs = new Set(runs().map((r) => `${r.outputFormat}\n${r.stdout}\n${r.stderr}`));
    expect(outputs.size).toBeGreaterThanOrEqual(300);
    for (const kind of ['assistant', 'vitest', 'jest', 'pytest', 'go-test', 'hand-written']) {
      expect(corpus.some((s) => s.kind === kind)).toBe(true);
    }
    // the corpus does talk about the words the rules know
    for (const word of [/quota/i, /rate limit/i, /\b429\b/, /overloaded/i, /context window/i]) {
      expect(corpus.some((s) => word.test(s.text))).toBe(true);
    }
  });

  it.each(Object.keys(JSON_SHAPES))('%s: no sample yields a failover class', async (agent) => {
    const wrong: string[] = [];
    let checked = 0;
    for (const run of runs().filter((r) => r.agent === agent)) {
      const evidence = collectEvidence({
        agent: run.agent,
        outputFormat: run.outputFormat,
        stdout: run.stdout,
        stderr: run.stderr,
        exitCode: run.exitCode,
      });
      const verdict = await classifyEvidence(evidence, CHAIN, ctx);
      checked++;
      if (isFailoverClass(verdict.class)) {
        wrong.push(`${run.name}: ${verdict.class} from ${verdict.evidence.join(' / ')}`);
      }
    }
    expect(checked).toBe(corpus.length * 6);
    expect(wrong).toEqual([]);
  });
});
