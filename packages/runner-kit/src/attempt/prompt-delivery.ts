import type { AgentPromptInput, PromptChannels } from '@switchyard/core';

/**
 * Most bytes of one argv element switchyard passes to an agent. Linux refuses a single
 * argument over 128 KiB (MAX_ARG_STRLEN) with `spawn E2BIG`; the margin leaves room for the
 * environment and the other arguments on systems with a smaller total limit.
 */
export const MAX_ARGV_PROMPT_BYTES = 96 * 1024;

/** How an attempt's prompt reaches the agent. */
export type PromptDeliveryPlan =
  /** `argv` is what to spawn; `stdin` true: the prompt file is the agent's standard input. */
  | { argv: string[]; stdin: boolean }
  /** Why the prompt cannot reach this agent: the attempt is refused before spawning. */
  | { refused: string };

/** Input of {@link planPromptDelivery}. */
export interface PromptDeliveryInput {
  /** The filled argv (the prompt is one element, or inside one). */
  argv: readonly string[];
  prompt: string;
  /** Catalog agent identity, for the reason. */
  agent: string;
  /** What the agent's plugin declares its CLI accepts besides argv. */
  agentInput: AgentPromptInput | undefined;
  /** Name and channels of the runner that would start it. */
  runner: { name: string; channels: PromptChannels | undefined };
  /** Default {@link MAX_ARGV_PROMPT_BYTES}. */
  maxArgvBytes?: number;
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Decides how a prompt reaches the agent. Within the argv limit: as written. Above it: through
 * standard input when the agent's CLI reads its prompt there (its plugin says so, and what the
 * `{prompt}` argv element becomes) and the runner can feed a file to stdin; the prompt element
 * must be the prompt alone (not `--prompt=<prompt>`). Otherwise refused, with the reason.
 */
export function planPromptDelivery(input: PromptDeliveryInput): PromptDeliveryPlan {
  const limit = input.maxArgvBytes ?? MAX_ARGV_PROMPT_BYTES;
  const over = input.argv.flatMap((element, index) => (bytes(element) > limit ? [index] : []));
  if (over.length === 0) return { argv: [...input.argv], stdin: false };
  const size = `${Math.ceil(bytes(input.prompt) / 1024)} KiB`;
  const head = `the prompt (${size}) is over the ${limit / 1024} KiB an argv element may safely hold`;
  const stdin = input.agentInput?.stdin;
  if (!stdin)
    return {
      refused: `${head}, and the plugin of agent "${input.agent}" declares no other way to pass it (stdin or file)`,
    };
  if (input.runner.channels?.stdin !== true)
    return {
      refused: `${head}, and runner ${input.runner.name} cannot feed a prompt on standard input`,
    };
  const embedded = over.find((i) => input.argv[i] !== input.prompt);
  if (embedded !== undefined)
    return {
      refused: `${head}, and argv[${embedded}] holds it inside other text, so it cannot move to standard input`,
    };
  const argv: string[] = [];
  for (const element of input.argv) {
    if (element !== input.prompt) argv.push(element);
    else if (stdin.argvPrompt !== null) argv.push(stdin.argvPrompt);
  }
  return { argv, stdin: true };
}
