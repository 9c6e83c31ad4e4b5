// Live smoke run: the pinned releases of four real agent CLIs (Claude Code, Codex, Gemini CLI,
// Qwen Code; installed by `.ci/run` into the smoke cache, see clis.mjs) run by `switchyard run` —
// the built CLI and its real dispatcher — against the testkit's mock provider, twice, at once:
// - without a sandbox: Codex gets a 429 and the task fails over to Claude Code, whose tool call
//   (its own Bash tool, scripted by the mock) writes the task's file and ticks the plan; Claude
//   Code reviews (a tool call writes the verdict); a second task is written by Gemini CLI and
//   reviewed by Qwen Code, each through its own shell tool;
// - inside the bubblewrap sandbox (`sandbox: { mode: "bwrap" }`): Codex writes the first task
//   (its exec_command tool) and Claude Code reviews it, Qwen Code writes the second and Gemini
//   CLI reviews it; every attempt runs sandboxed.
// Every task is archived. Skipped, saying why, when the CLIs are not in the cache; `.ci/run`
// installs them and sets SWITCHYARD_SMOKE_REQUIRED=1 so that CI can never skip it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
const WORK = (file: string) =>
  `printf "hello from a real agent\\n" > "$SWITCHYARD_WORKSPACE/src/${file}"`;
const TICK = 'sed -i "s/- \\[ \\]/- [x]/" "$SWITCHYARD_PLAN"';
const VERDICT = 'printf "Verdict: APPROVED\\n" > "$SWITCHYARD_REVIEW_FILE"';
/** Each CLI's shell tool, as its request offers it, with the input its schema wants. */
const SHELL_TOOLS: [string, (command: string) => Record<string, unknown>][] = [
  ['Bash', (command) => ({ command })], // Claude Code
  ['exec_command', (cmd) => ({ cmd })], // Codex
  ['run_shell_command', (command) => ({ command })], // Gemini CLI, Qwen Code
  ['bash', (command) => ({ command, description: 'do the task' })], // Copilot
];
/** The same shell command through whichever shell tool the CLI offers. */
const shellCalls = (when: string, command: string) =>
  SHELL_TOOLS.map(([name, input]) => ({ when, name, input: input(command) }));
const copilot = (SMOKE_AGENTS as string[]).includes('copilot');

let mock: MockProvider;
beforeAll(async () => {
  if (missing.length > 0) return;
  mock = await startMockProvider({
    retryAfterSeconds: 1,
    replyText: 'Done.',
    // the review prompt's heading (assets/prompts) first, then each worker prompt by the
    // task's file (its write set, which the review prompt names too)
    toolCalls: [
      ...shellCalls('# Official review', VERDICT),
      ...shellCalls('src/hello.txt', `${WORK('hello.txt')} && ${TICK}`),
      ...shellCalls('src/second.txt', `${WORK('second.txt')} && ${TICK}`),
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

/** The catalog targets of the four CLIs (their settings, the mock's URLs among them, come from
 * the environment: see `smokeWorkspace`). */
function targets() {
  const [claude, codex, gemini, qwen] = ['claude-code', 'codex', 'gemini-cli', 'qwen-code'].map(
    (a) => smokeCli(a) as { command: string[] },
  );
  const target = (agent: string, model: string, command: string[]) => ({
    agent,
    model,
    execution_class: 'cloud_model',
    selfcheck_required: false,
    runtime: { command, output_format: 'jsonl' },
  });
  return {
    codex: target('codex', 'gpt-5.1-codex', [
      ...codex!.command,
      'exec',
      '--json',
      '--model',
      '{model}',
      '--skip-git-repo-check',
      // the sandbox (or the test's mock) is the boundary; Codex's own would refuse the write
      '--dangerously-bypass-approvals-and-sandbox',
      '{prompt}',
    ]),
    claude: target('claude-code', 'claude-mock', [
      ...claude!.command,
      '-p',
      '{prompt}',
      '--model',
      '{model}',
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'Bash',
    ]),
    gemini: target('gemini-cli', 'gemini-2.5-pro', [
      ...gemini!.command,
      '-p',
      '{prompt}',
      '--output-format',
      'stream-json',
      '-m',
      '{model}',
      '--yolo',
    ]),
    ...(copilot
      ? {
          copilot: target('copilot', 'gpt-4.1', [
            ...(smokeCli('copilot') as { command: string[] }).command,
            '-p',
            '{prompt}',
            '--allow-all-tools',
            '--disable-client-telemetry',
            '--output-format',
            'json',
          ]),
        }
      : {}),
    qwen: target('qwen-code', 'qwen3-coder-plus', [
      ...qwen!.command,
      '-p',
      '{prompt}',
      '--output-format',
      'stream-json',
      '--auth-type',
      'openai',
      '--yolo',
    ]),
  };
}

/**
 * A workspace with two tasks: `g/hello` on route cloud-G01 (and every other route),
 * `g/second` on cloud-G02, whose worker and review candidates are given; the agents' settings
 * (dummy keys, the mock's URLs; Codex's pointed at the 429 URL when asked) live in a HOME
 * of their own beside it (as a user's HOME is not inside the project: what the CLIs write there
 * is no change of the task's).
 */
async function smokeWorkspace(
  routes: Record<'hello' | 'second', { worker: string[]; review: string[] }>,
  codexFault: 'rate-limit' | 'none',
  config: Record<string, unknown> = {},
) {
  const ws = new Workspace();
  const home = mkdtempSync(join(tmpdir(), 'sy-home-'));
  mkdirSync(ws.path('src'));
  // Each CLI's own mock setup from the contract captures.
  const env = {
    HOME: home,
    ...(await AGENTS.codex.setup({
      home,
      base: codexFault === 'none' ? mock.url : mock.urlFor(codexFault),
    })),
    ...(await AGENTS['claude-code'].setup({ home, base: mock.url })),
    ...(await AGENTS['gemini-cli'].setup({ home, base: mock.url })),
    ...(await AGENTS['qwen-code'].setup({ home, base: mock.url })),
    ...(copilot ? await AGENTS.copilot.setup({ home, base: mock.url }) : {}),
  };
  const all = targets();
  const routesOf = (stage: 'worker' | 'review') =>
    Object.fromEntries(
      ROUTES.map((r) => [
        r,
        { candidates: r === 'cloud-G02' ? routes.second[stage] : routes.hello[stage] },
      ]),
    );
  writeFileSync(
    ws.catalogFile,
    JSON.stringify({
      schema_version: 1,
      targets: all,
      routes: { worker: routesOf('worker'), review: routesOf('review') },
    }),
  );
  ws.task('g/hello', { files: ['src/hello.txt'], checklist: ['write src/hello.txt'] });
  ws.task('g/second', {
    route: 'cloud-G02',
    files: ['src/second.txt'],
    checklist: ['write src/second.txt'],
  });
  ws.config({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...config });
  return { ws, env, home };
}

/** Who ran what: `task role target` for every attempt, and whether it was sandboxed. */
function attempts(ws: Workspace) {
  return ws
    .events()
    .filter((e) => e.type === 'attempt.started')
    .map((e) => `${e.task} ${e.role} ${e.target}${e.sandbox ? ` ${e.sandbox}` : ''}`)
    .sort();
}

function expectArchived(ws: Workspace) {
  expect(ws.read('src/hello.txt')).toBe('hello from a real agent\n');
  expect(ws.read('src/second.txt')).toBe('hello from a real agent\n');
  for (const task of ['hello', 'second']) {
    expect(ws.exists(`agent-task/archive/g/${task}/complete.log`)).toBe(true);
    expect(ws.read(`agent-task/archive/g/${task}/PLAN.md`)).toContain(
      `- [x] write src/${task}.txt`,
    );
    expect(ws.read(`agent-task/archive/g/${task}/CODE_REVIEW-1.md`)).toContain('Verdict: APPROVED');
  }
}

describe
  .skipIf(missing.length > 0 && !required)
  .concurrent('live smoke run: real agent CLIs', () => {
    it('without a sandbox: a 429 on Codex fails over to Claude Code; Gemini CLI writes, Qwen Code reviews; all archived', {
      timeout: 300_000,
    }, async () => {
      expect(missing, `not installed in ${SMOKE_CACHE}: run node test/smoke/install.mjs`).toEqual(
        [],
      );
      const { ws, env } = await smokeWorkspace(
        {
          hello: { worker: ['codex', 'claude'], review: ['claude'] },
          second: { worker: ['gemini'], review: ['qwen'] },
        },
        'rate-limit',
      );
      const result = await run(
        ['run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile],
        env,
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('Done: 2 task(s) archived');
      // the 429 reached Codex, and the worker stage failed over on it
      expect(
        mock.requests.some((r) => r.fault === 'rate-limit' && r.protocol === 'openai-responses'),
      ).toBe(true);
      expect(ws.events().filter((e) => e.type === 'target.failover')).toEqual([
        expect.objectContaining({
          task: 'g/hello',
          stage: 'worker',
          from: 'codex',
          to: 'claude',
          class: 'provider-quota',
        }),
      ]);
      expect(attempts(ws)).toEqual([
        'g/hello review claude',
        'g/hello worker claude',
        'g/hello worker codex',
        'g/second review qwen',
        'g/second worker gemini',
      ]);
      expectArchived(ws);
    });

    it('inside the bubblewrap sandbox: Codex writes, Claude Code reviews; Qwen Code writes, Gemini CLI reviews; all archived', {
      timeout: 300_000,
    }, async () => {
      expect(missing, `not installed in ${SMOKE_CACHE}: run node test/smoke/install.mjs`).toEqual(
        [],
      );
      const { ws, env, home } = await smokeWorkspace(
        {
          hello: { worker: ['codex'], review: ['claude'] },
          second: { worker: ['qwen'], review: ['gemini'] },
        },
        'none',
        { sandbox: { mode: 'bwrap' } },
      );
      const result = await run(
        ['run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile],
        env,
      );
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(attempts(ws)).toEqual([
        'g/hello review claude bwrap',
        'g/hello worker codex bwrap',
        'g/second review gemini bwrap',
        'g/second worker qwen bwrap',
      ]);
      expectArchived(ws);
      // each CLI kept its session where its agent plugin said it writes (native resume needs it)
      const sessions = (dir: string) =>
        readdirSync(join(home, dir), { recursive: true }).filter((f) =>
          String(f).endsWith('.jsonl'),
        );
      for (const dir of ['.claude/projects', '.codex/sessions', '.gemini/tmp', '.qwen/projects'])
        expect(sessions(dir), dir).not.toEqual([]);
    });

    // Opt-in (SWITCHYARD_SMOKE_COPILOT=1): Copilot's first start unpacks about 235 MB.
    it.skipIf(!copilot).each(['none', 'bwrap'])(
      'Copilot CLI writes and reviews, sandbox %s',
      {
        timeout: 300_000,
      },
      async (sandbox) => {
        const both = { worker: ['copilot'], review: ['copilot'] };
        const { ws, env } = await smokeWorkspace({ hello: both, second: both }, 'none', {
          sandbox: sandbox === 'none' ? 'none' : { mode: 'bwrap' },
        });
        const result = await run(
          ['run', '--workspace', ws.dir, '--execution-catalog', ws.catalogFile],
          env,
        );
        expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
        const suffix = sandbox === 'none' ? 'copilot' : 'copilot bwrap';
        expect(attempts(ws).every((a) => a.endsWith(suffix))).toBe(true);
        expectArchived(ws);
      },
    );
  });
