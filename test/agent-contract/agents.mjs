// How each real agent CLI is run against the mock provider: binary, argv per output mode,
// environment (base URL, dummy key, retry knob) and the settings files it reads from HOME.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/**
 * Where the CLIs are installed: this directory by default, or another npm prefix holding an
 * older release line (`--cli-root`, e.g. a cache folder outside the repository).
 */
let cliRoot = here;
let modules = join(here, 'node_modules');
let require = createRequire(join(here, 'package.json'));
export function useCliRoot(root) {
  cliRoot = root;
  modules = join(root, 'node_modules');
  require = createRequire(join(root, 'package.json'));
}
export function currentCliRoot() {
  return cliRoot;
}
/** Node 24 from the monorepo root (newest Claude Code / Qwen Code / Gemini CLI need Node 22+). */
export const NODE24 = join(here, '..', '..', 'node_modules', '.bin', 'node');
export const PROMPT = 'Reply with one short greeting. Do not use any tools.';

function version(pkg) {
  try {
    return require(`${pkg}/package.json`).version;
  } catch {
    return undefined;
  }
}

/** The version of `pkg` installed in the node_modules folder `dir`. */
function versionIn(dir, pkg) {
  try {
    return JSON.parse(readFileSync(join(dir, pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/**
 * Per agent: `pkg`, `command(modulesDir?)` => [command, ...prefix] (from the node_modules here
 * by default; the smoke run passes its cache's), `args[mode]`, `apiBase(mockBase)` (the
 * base URL the CLI wants), `setup({ home, base })` => extra env. `retryKnob` documents the
 * CLI's own retry setting, which the captures set low so a fault surfaces in seconds.
 */
export const AGENTS = {
  'claude-code': {
    pkg: '@anthropic-ai/claude-code',
    command: (dir = modules) => [join(dir, '@anthropic-ai/claude-code-linux-x64/claude')],
    args: {
      text: ['-p', PROMPT, '--output-format', 'text'],
      jsonl: ['-p', PROMPT, '--output-format', 'stream-json', '--verbose'],
    },
    retryKnob: 'env CLAUDE_CODE_MAX_RETRIES (default 10)',
    setup: async ({ base }) => ({
      ANTHROPIC_BASE_URL: base,
      ANTHROPIC_API_KEY: 'sk-ant-mock-dummy',
      CLAUDE_CODE_MAX_RETRIES: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      API_TIMEOUT_MS: '30000',
    }),
  },
  codex: {
    pkg: '@openai/codex',
    command: (dir = modules) => [
      join(dir, '@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex'),
    ],
    args: {
      text: ['exec', '--skip-git-repo-check', PROMPT],
      jsonl: ['exec', '--skip-git-repo-check', '--json', PROMPT],
    },
    retryKnob:
      'config model_providers.<id>.request_max_retries / stream_max_retries (defaults 4 / 5; no env variable; set in CODEX_HOME/config.toml or with -c)',
    setup: async ({ home, base }) => {
      const codexHome = join(home, '.codex');
      await mkdir(codexHome, { recursive: true });
      await writeFile(
        join(codexHome, 'config.toml'),
        [
          'model = "gpt-5.1-codex"',
          'model_provider = "mock"',
          '[model_providers.mock]',
          'name = "mock"',
          `base_url = "${base}/v1"`,
          'env_key = "MOCK_API_KEY"',
          'wire_api = "responses"',
          'request_max_retries = 1',
          'stream_max_retries = 1',
          'stream_idle_timeout_ms = 10000',
          '',
        ].join('\n'),
      );
      return { CODEX_HOME: codexHome, MOCK_API_KEY: 'sk-mock-dummy' };
    },
  },
  'gemini-cli': {
    pkg: '@google/gemini-cli',
    command: (dir = modules) => [NODE24, join(dir, '@google/gemini-cli/bundle/gemini.js')],
    args: {
      text: ['-p', PROMPT, '--output-format', 'text', '-m', 'gemini-2.5-pro'],
      jsonl: ['-p', PROMPT, '--output-format', 'stream-json', '-m', 'gemini-2.5-pro'],
    },
    retryKnob:
      'settings general.maxAttempts (default 10, max 10; no env variable; ~/.gemini/settings.json or the file named by GEMINI_CLI_SYSTEM_SETTINGS_PATH)',
    setup: async ({ home, base }) => {
      await mkdir(join(home, '.gemini'), { recursive: true });
      const settings = {
        general: { maxAttempts: 2 },
        security: { auth: { selectedType: 'gemini-api-key' } },
      };
      await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
      return {
        GEMINI_API_KEY: 'mock-dummy',
        GOOGLE_GEMINI_BASE_URL: base,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      };
    },
  },
  'qwen-code': {
    pkg: '@qwen-code/qwen-code',
    command: (modulesDir = modules) => {
      const dir = join(modulesDir, '@qwen-code/qwen-code');
      // 0.24.x starts from cli-entry.js; 0.15.x ships only cli.js
      const entry = versionIn(modulesDir, '@qwen-code/qwen-code')?.startsWith('0.15.')
        ? 'cli.js'
        : 'cli-entry.js';
      return [NODE24, join(dir, entry)];
    },
    args: {
      text: ['-p', PROMPT, '--output-format', 'text', '--auth-type', 'openai'],
      jsonl: ['-p', PROMPT, '--output-format', 'stream-json', '--auth-type', 'openai'],
    },
    retryKnob:
      'settings model.generationConfig.maxRetries (no env variable; ~/.qwen/settings.json or the file named by QWEN_CODE_SYSTEM_SETTINGS_PATH); QWEN_CODE_UNATTENDED_RETRY=1 makes it retry 429/529 forever — never set it',
    setup: async ({ home, base }) => {
      await mkdir(join(home, '.qwen'), { recursive: true });
      const settings = {
        model: { generationConfig: { maxRetries: 1 } },
        security: { auth: { selectedType: 'openai' } },
      };
      await writeFile(join(home, '.qwen', 'settings.json'), JSON.stringify(settings));
      return {
        OPENAI_API_KEY: 'sk-mock-dummy',
        OPENAI_BASE_URL: `${base}/v1`,
        OPENAI_MODEL: 'qwen3-coder-plus',
      };
    },
  },
  copilot: {
    pkg: '@github/copilot',
    command: (dir = modules) => [join(dir, '@github/copilot-linux-x64/copilot')],
    args: {
      text: ['-p', PROMPT, '--allow-all-tools', '--disable-client-telemetry'],
      jsonl: [
        '-p',
        PROMPT,
        '--allow-all-tools',
        '--disable-client-telemetry',
        '--output-format',
        'json',
      ],
    },
    retryKnob: 'none documented for BYOK providers; the CLI retries 429/5xx itself',
    // Offline BYOK: no GitHub sign-in, the mock as an OpenAI-compatible provider.
    setup: async ({ base }) => ({
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_BASE_URL: `${base}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      // a key of one letter is masked everywhere in the output ("e******ceeded"); use a longer dummy
      COPILOT_PROVIDER_API_KEY: 'sk-mock-dummy',
      COPILOT_MODEL: 'gpt-4.1',
    }),
  },
};

export function agentVersion(agent) {
  return version(AGENTS[agent].pkg);
}

/**
 * Variants of a CLI's argv that the captures record separately, e.g. Gemini CLI with its
 * automatic model router instead of a pinned `-m`. Fixtures go to `<version>+<variant>`.
 */
export const VARIANTS = {
  'gemini-cli': {
    router: (args) => {
      const i = args.indexOf('-m');
      return i < 0 ? args : [...args.slice(0, i), ...args.slice(i + 2)];
    },
  },
};

/** True when the CLI's package is installed in test/agent-contract/node_modules. */
export function isInstalled(agent) {
  return agentVersion(agent) !== undefined;
}
