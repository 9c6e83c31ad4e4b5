#!/usr/bin/env node
// Recaptures the contract fixtures: every agent CLI x fault x output mode against the
// testkit mock provider. Usage (from the repo root, after `npx -y pnpm@10.34.9 build`):
//   npm install --prefix test/agent-contract
//   node_modules/.bin/node test/agent-contract/capture.mjs [--agent codex] [--fault rate-limit] [--mode jsonl] [--timeout 120]
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AGENTS, agentVersion, isInstalled, useCliRoot, VARIANTS } from './agents.mjs';
import { CAPTURE_FAULTS, runCli } from './run-cli.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    agent: { type: 'string', multiple: true },
    fault: { type: 'string', multiple: true },
    mode: { type: 'string', multiple: true },
    concurrency: { type: 'string', default: '6' },
    timeout: { type: 'string', default: '120' },
    // an npm prefix holding another release line, e.g. ~/.cache/sy-clis/claude-2.1.197
    'cli-root': { type: 'string' },
    variant: { type: 'string' },
  },
});
if (values['cli-root'] !== undefined) useCliRoot(values['cli-root']);
const testkit = join(here, '..', '..', 'packages', 'testkit', 'dist', 'index.js');
const { startMockProvider, refusedUrl } = await import(testkit).catch(() => {
  console.error('packages/testkit is not built: run `npx -y pnpm@10.34.9 build` first.');
  process.exit(2);
});

const agents = values.agent ?? Object.keys(AGENTS);
const missing = agents.filter((a) => !isInstalled(a));
if (missing.length > 0) {
  console.error(
    `not installed: ${missing.join(', ')} — run: npm install --prefix test/agent-contract`,
  );
  process.exit(2);
}
if (values.variant !== undefined) {
  const unknown = agents.filter((a) => VARIANTS[a]?.[values.variant] === undefined);
  if (unknown.length > 0) {
    console.error(`no variant "${values.variant}" for: ${unknown.join(', ')}`);
    process.exit(2);
  }
}
const faults = values.fault ?? CAPTURE_FAULTS;
const modes = values.mode ?? ['text', 'jsonl'];
// retry-after 2s keeps the CLIs' own retries short; the classifier tests read it back.
const mock = await startMockProvider({ retryAfterSeconds: 2 });
const refused = await refusedUrl();
const jobs = agents.flatMap((agent) =>
  faults.flatMap((fault) => modes.map((mode) => ({ agent, fault, mode }))),
);
let next = 0;
async function worker() {
  while (next < jobs.length) {
    const job = jobs[next++];
    const base = job.fault === 'connection-refused' ? refused : mock.urlFor(job.fault);
    const result = await runCli({
      ...job,
      base,
      variant: values.variant,
      timeoutMs: Number(values.timeout) * 1000,
    });
    // one folder per release line (and variant): fixtures/<agent>/<version>[+<variant>]/
    const line = `${agentVersion(job.agent)}${values.variant ? `+${values.variant}` : ''}`;
    const dir = join(here, 'fixtures', job.agent, line);
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, `${job.mode}.${job.fault}.json`),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    const how = result.timedOut ? 'TIMEOUT' : `exit ${result.exitCode ?? result.signal}`;
    console.log(
      `${job.agent.padEnd(11)} ${job.mode.padEnd(5)} ${job.fault.padEnd(18)} ${how} in ${result.elapsedMs} ms`,
    );
  }
}
await Promise.all(Array.from({ length: Number(values.concurrency) }, worker));
await mock.close();
