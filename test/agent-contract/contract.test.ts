// Live contract test: re-runs the real agent CLIs against the mock provider and asserts the
// class of each fault. Opt-in (minutes of runtime, ~1 GB of CLIs): it runs only with
// SWITCHYARD_CONTRACT=1 and the CLIs installed (`npm install --prefix test/agent-contract`),
// and says loudly why it skipped otherwise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type MockProvider,
  refusedUrl,
  startMockProvider,
} from '../../packages/testkit/src/mock-provider/index.js';
import { claudeCodeClassifier } from '../../plugins/classifier-claude-code/src/classifier.js';
import { codexClassifier } from '../../plugins/classifier-codex/src/classifier.js';
import { copilotClassifier } from '../../plugins/classifier-copilot/src/classifier.js';
import { geminiCliClassifier } from '../../plugins/classifier-gemini-cli/src/classifier.js';
import { classifyCapture } from '../../plugins/classifier-generic/src/fixture-harness.js';
import { genericClassifier } from '../../plugins/classifier-generic/src/generic-classifier.js';
import { qwenCodeClassifier } from '../../plugins/classifier-qwen-code/src/classifier.js';
// @ts-expect-error plain .mjs helpers shared with the capture command
import { AGENTS, isInstalled } from './agents.mjs';
import { EXPECTED_CLASS } from './fixtures.js';
// @ts-expect-error plain .mjs helpers shared with the capture command
import { CAPTURE_FAULTS, runCli } from './run-cli.mjs';

const CLASSIFIERS = {
  'claude-code': claudeCodeClassifier,
  codex: codexClassifier,
  'gemini-cli': geminiCliClassifier,
  'qwen-code': qwenCodeClassifier,
  copilot: copilotClassifier,
} as const;
const agents = Object.keys(AGENTS) as (keyof typeof CLASSIFIERS)[];
const missing = agents.filter((a) => !isInstalled(a));
const enabled = process.env.SWITCHYARD_CONTRACT === '1' && missing.length === 0;
if (!enabled) {
  const why =
    process.env.SWITCHYARD_CONTRACT !== '1'
      ? 'SWITCHYARD_CONTRACT=1 is not set'
      : `not installed: ${missing.join(', ')} (npm install --prefix test/agent-contract)`;
  console.warn(
    `\n*** agent contract test SKIPPED: ${why}. Fixture tests still cover the classifiers. ***\n`,
  );
}

let mock: MockProvider;
let refused: string;
beforeAll(async () => {
  if (!enabled) return;
  mock = await startMockProvider({ retryAfterSeconds: 2 });
  refused = await refusedUrl();
});
afterAll(async () => {
  await mock?.close();
});

describe.skipIf(!enabled)('real agent CLIs against the mock provider', () => {
  const cases = agents.flatMap((agent) =>
    (CAPTURE_FAULTS as string[]).flatMap((fault) =>
      (['text', 'jsonl'] as const).map((mode) => [agent, mode, fault] as const),
    ),
  );
  it.concurrent.each(cases)(
    '%s %s %s',
    async (agent, mode, fault) => {
      const base = fault === 'connection-refused' ? refused : mock.urlFor(fault as never);
      const run = await runCli({ agent, mode, fault, base, timeoutMs: 300_000 });
      const verdict = await classifyCapture(run, [CLASSIFIERS[agent](), genericClassifier()]);
      expect(verdict.class, `${run.stdout}\n${run.stderr}`.slice(-2000)).toBe(
        EXPECTED_CLASS[fault],
      );
    },
    360_000,
  );
});
