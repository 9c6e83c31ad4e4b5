// Live smoke run: the pinned releases of two real agent CLIs (Claude Code and Codex, installed
// by `.ci/run` into the smoke cache, see clis.mjs) run by `switchyard run` — the built CLI and
// its real dispatcher — against the testkit's mock provider. Codex gets a 429 and the task
// must fail over to Claude Code, whose tool call (its own Bash tool, scripted by the mock)
// writes the task's file and ticks the plan; Claude Code then reviews (a tool call writes the
// verdict) and the task is archived. Skipped, saying why, when the CLIs are not in the cache;
// `.ci/run` installs them and sets SWITCHYARD_SMOKE_REQUIRED=1 so that CI can never skip it.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../../packages/testkit/src/index.js';
// @ts-expect-error plain .mjs helpers shared with the contract captures
import { AGENTS } from '../agent-contract/agents.mjs';
import { CLI, Workspace } from '../dispatcher/helpers.js';
// @ts-expect-error plain .mjs helpers shared with the installer
import { isSmokeCliInstalled, SMOKE_AGENTS, SMOKE_CACHE, smokeCli } from './clis.mjs';

const missing = (SMOKE_AGENTS as string[]).filter((a) => !isSmokeCliInstalled(a));
const required = process.env.SWITCHYARD_SMOKE_REQUIRED === '1';
if (missing.length > 0 && !required) {
  console.warn(
    `\n*** live smoke run SKIPPED: not in ${SMOKE_CACHE}: ${missing.join(', ')} (install with \`node test/smoke/install.mjs\`). ***\n`,
  );
}

const ROUTES = ['local', 'cloud'].flatMap((k) =>
  Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
);
const WORK = 'printf "hello from a real agent\\n" > "$SWITCHYARD_WORKSPACE/src/hello.txt"';
const TICK = 'sed -i "s/- \\[ \\]/- [x]/" "$SWITCHYARD_PLAN"';
const VERDICT = 'printf "Verdict: APPROVED\\n" > "$SWITCHYARD_REVIEW_FILE"';

let mock: MockProvider;
beforeAll(async () => {
  if (missing.length > 0) return;
  mock = await startMockProvider({
    retryAfterSeconds: 1,
    replyText: 'Done.',
    toolCalls: [
      // the headings of the bundled worker and review prompts (assets/prompts)
      { when: '# Implement the plan', name: 'Bash', input: { command: `${WORK} && ${TICK}` } },
      { when: '# Official review', name: 'Bash', input: { command: VERDICT } },
    ],
  });
});
afterAll(async () => {
  await mock?.close();
});

/** Runs the built CLI with a clean environment: only what the agents need, nothing inherited. */
function run(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
        TERM: 'dumb',
        NO_COLOR: '1',
        LANG: 'C.UTF-8',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(missing.length > 0 && !required)('live smoke run: real agent CLIs', () => {
  it('fails over from a 429 on Codex to Claude Code, whose tool call does the work; reviewed and archived', {
    timeout: 110_000,
  }, async () => {
    expect(missing, `not installed in ${SMOKE_CACHE}: run node test/smoke/install.mjs`).toEqual([]);
    const ws = new Workspace();
    const home = ws.path('.home');
    mkdirSync(home);
    mkdirSync(ws.path('src'));
    const codex = smokeCli('codex');
    const claude = smokeCli('claude-code');
    // Each CLI's own mock setup from the contract captures: Codex is pointed at a base URL
    // where every request gets a 429, Claude Code at a healthy one.
    const codexEnv = await AGENTS.codex.setup({ home, base: mock.urlFor('rate-limit') });
    const claudeEnv = await AGENTS['claude-code'].setup({ home, base: mock.url });
    writeFileSync(
      ws.catalogFile,
      JSON.stringify({
        schema_version: 1,
        targets: {
          'codex-live': {
            agent: 'codex',
            model: 'gpt-5.1-codex',
            execution_class: 'cloud_model',
            selfcheck_required: false,
            runtime: {
              command: [
                codex.binary,
                'exec',
                '--json',
                '--model',
                '{model}',
                '--skip-git-repo-check',
                '{prompt}',
              ],
              output_format: 'jsonl',
            },
          },
          'claude-live': {
            agent: 'claude-code',
            model: 'claude-mock',
            execution_class: 'cloud_model',
            selfcheck_required: false,
            runtime: {
              command: [
                claude.binary,
                '-p',
                '{prompt}',
                '--model',
                '{model}',
                '--output-format',
                'stream-json',
                '--verbose',
                '--allowedTools',
                'Bash',
              ],
              output_format: 'jsonl',
            },
          },
        },
        routes: {
          worker: Object.fromEntries(
            ROUTES.map((r) => [r, { candidates: ['codex-live', 'claude-live'] }]),
          ),
          review: Object.fromEntries(ROUTES.map((r) => [r, { candidates: ['claude-live'] }])),
        },
      }),
    );
    ws.task('g/smoke', { files: ['src/hello.txt'], checklist: ['write src/hello.txt'] });

    const result = await run(
      ['run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile],
      // the agents' settings (dummy keys among them) come from where switchyard runs
      { HOME: home, ...codexEnv, ...claudeEnv },
    );
    const why = `${result.stdout}\n${result.stderr}`;
    expect(result.code, why).toBe(0);
    expect(result.stdout).toContain('Done: 1 task(s) archived');

    // the 429 reached Codex, and the worker stage failed over on it
    expect(
      mock.requests.some((r) => r.fault === 'rate-limit' && r.protocol === 'openai-responses'),
    ).toBe(true);
    const events = ws.events();
    expect(events.filter((e) => e.type === 'target.failover')).toEqual([
      expect.objectContaining({
        task: 'g/smoke',
        stage: 'worker',
        from: 'codex-live',
        to: 'claude-live',
        class: 'provider-quota',
      }),
    ]);
    // Claude Code ran the scripted tool calls: the work, then the review
    expect(mock.requests.filter((r) => r.toolCall === 'Bash')).toHaveLength(2);
    expect(ws.read('src/hello.txt')).toBe('hello from a real agent\n');
    expect(ws.exists('agent-task/archive/g/smoke/complete.log')).toBe(true);
    expect(ws.read('agent-task/archive/g/smoke/PLAN.md')).toContain('- [x] write src/hello.txt');
    expect(ws.read('agent-task/archive/g/smoke/CODE_REVIEW-1.md')).toContain('Verdict: APPROVED');
  });
});
