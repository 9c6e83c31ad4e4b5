import type { RunnerPlugin } from '@switchyard/core';
import { type PromptDeliveryPlan, planPromptDelivery } from '@switchyard/runner-kit';
import type { DispatchContext } from '../types.js';
import type { AttemptInputs } from './attempt-spec.js';

/**
 * How this attempt's prompt reaches its agent: in argv when it fits, else on standard input
 * when the agent's plugin and the runner both allow it, else refused (see
 * `planPromptDelivery`). `runner` is the one that would start it (undefined when none
 * serves the target: that is reported where the attempt starts).
 */
export function deliverPrompt(
  ctx: DispatchContext,
  inputs: AttemptInputs,
  argv: readonly string[],
  runner: RunnerPlugin | undefined,
): PromptDeliveryPlan {
  return planPromptDelivery({
    argv,
    prompt: inputs.prompt,
    agent: inputs.target.agent,
    // the agent's classifiers, agent-specific first: the first that declares it
    agentInput: ctx.options.plugins
      .classifiersFor(inputs.target.agent)
      .find((c) => c.promptInput !== undefined)?.promptInput,
    runner: {
      name: runner?.meta.name ?? '(none)',
      channels: runner?.promptDelivery,
    },
  });
}
