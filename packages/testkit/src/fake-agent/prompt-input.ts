import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { FakeAgentStdin } from './agent-io.js';

/** Where the fake agent's prompt came from, as a real CLI would take it. */
export interface ReceivedPrompt {
  via: 'argv' | 'stdin';
  text: string;
}

/**
 * The prompt, like the CLIs read it: the last positional argument; from stdin when stdin is a
 * file (what a runner gives for a prompt too long for argv), or a pipe and the prompt argument
 * is missing or `-` (codex `exec -`). An argument next to a stdin prompt is appended to it
 * (Gemini CLI's `--prompt`).
 */
export function receivePrompt(
  positionals: readonly string[],
  stdin: FakeAgentStdin,
): ReceivedPrompt {
  const last = positionals.at(-1);
  const { kind } = stdin;
  const wantsStdin = kind === 'file' || (kind === 'pipe' && (last === undefined || last === '-'));
  if (!wantsStdin) return { via: 'argv', text: last ?? '' };
  const read = stdin.read();
  const appended = last !== undefined && last !== '-' ? `\n\n${last}` : '';
  return { via: 'stdin', text: `${read}${appended}` };
}

/**
 * Appends `{ via, bytes, sha256, tail }` for the prompt to `file` (SWITCHYARD_FAKE_AGENT_PROMPT_LOG):
 * tests check what reached the agent without the agent echoing it into evidence.
 */
export function logPrompt(file: string, prompt: ReceivedPrompt): void {
  const bytes = Buffer.byteLength(prompt.text);
  const sha256 = createHash('sha256').update(prompt.text).digest('hex');
  appendFileSync(
    file,
    `${JSON.stringify({ via: prompt.via, bytes, sha256, tail: prompt.text.slice(-200) })}\n`,
  );
}
