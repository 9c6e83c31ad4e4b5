import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { assetPath } from '@switchyard/utils';
import { execa } from 'execa';

/** A demo workspace ready to run. */
export interface DemoWorkspace {
  dir: string;
  catalog: string;
  /** False when git is not installed (the demo still runs, without the repository). */
  git: boolean;
}

/** The testkit's scripted fake agent (`switchyard-fake-agent`), as installed with the CLI. */
export function fakeAgentBin(): string {
  const require = createRequire(import.meta.url);
  let testkit: string;
  try {
    testkit = require.resolve('@switchyard/testkit/package.json');
  } catch (error) {
    // An optional dependency of the CLI: only the demo needs it.
    throw new SwitchyardError(
      'SY_USAGE',
      'The demo needs @switchyard/testkit (its scripted fake agent), which is not installed.',
      {
        cause: error,
        hint: 'install it next to the CLI: npm install -g @switchyard/testkit (or without --omit=optional)',
      },
    );
  }
  return join(dirname(testkit), 'dist', 'fake-agent-bin.js');
}

/**
 * Copies the bundled demo backlog (`assets/demo/backlog`) into `dir` (default: a fresh temp
 * folder), writes the demo catalog with its targets pointing at the fake agent and the demo
 * scenarios, and makes the folder a git repository with one commit, so `git diff` shows
 * what the agents changed. Refuses a `dir` that exists and is not empty (`SY_USAGE`).
 */
export async function createDemoWorkspace(dir?: string): Promise<DemoWorkspace> {
  const target = dir ? resolve(dir) : mkdtempSync(join(tmpdir(), 'switchyard-demo-'));
  if (dir && existsSync(target) && readdirSync(target).length > 0) {
    throw new SwitchyardError('SY_USAGE', `--dir ${target} exists and is not empty.`, {
      hint: 'Name a new or empty folder, or leave --dir out to use a fresh temporary folder.',
    });
  }
  mkdirSync(target, { recursive: true, mode: 0o700 });
  const ws = realpathSync(target);
  const demo = assetPath('demo');
  cpSync(join(demo, 'backlog'), ws, { recursive: true });
  // The plans ship as PLAN.md.txt so repository formatters leave their front matter alone.
  for (const entry of readdirSync(join(ws, 'agent-task'), { recursive: true, encoding: 'utf8' })) {
    if (entry.endsWith('.md.txt')) {
      renameSync(
        join(ws, 'agent-task', entry),
        join(ws, 'agent-task', entry.slice(0, -'.txt'.length)),
      );
    }
  }
  const scenarios = join(ws, '.switchyard-demo');
  mkdirSync(scenarios, { recursive: true, mode: 0o700 });
  for (const name of ['worker-swift.json', 'worker-steady.json', 'reviewer.json']) {
    cpSync(join(demo, name), join(scenarios, name));
  }
  const catalog = join(scenarios, 'catalog.json');
  const text = readFileSync(join(demo, 'catalog.json'), 'utf8')
    .replaceAll('@NODE@', jsonString(process.execPath))
    .replaceAll('@FAKE_AGENT@', jsonString(fakeAgentBin()))
    .replaceAll('@DEMO@', jsonString(scenarios));
  writeFileSync(catalog, text);
  // Fake-agent run counters (`<scenario>.state.jsonl`) and the catalog stay out of git.
  writeFileSync(join(ws, '.gitignore'), '.switchyard-demo/\nagent-task/.switchyard/\n');
  return { dir: ws, catalog, git: await initRepository(ws) };
}

/** A string's JSON-escaped body (the placeholders sit inside JSON strings). */
function jsonString(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

async function initRepository(dir: string): Promise<boolean> {
  const git = (...args: string[]) =>
    execa(
      'git',
      ['-c', 'user.name=switchyard demo', '-c', 'user.email=demo@switchyard.invalid', ...args],
      {
        cwd: dir,
        stdin: 'ignore',
      },
    );
  try {
    await git('init', '--quiet', '--initial-branch=main');
    // Each task lands as a commit of its own (worktree isolation): the demo repository needs
    // an identity even where the user has none configured.
    await git('config', 'user.name', 'switchyard demo');
    await git('config', 'user.email', 'demo@switchyard.invalid');
    await git('add', '--all');
    await git('commit', '--quiet', '--message', 'demo backlog: six tasks for switchyard');
    return true;
  } catch {
    return false;
  }
}
