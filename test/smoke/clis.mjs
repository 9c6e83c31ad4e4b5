// The real agent CLIs of the live smoke run: pinned to the versions the contract captures use
// (test/agent-contract/package.json), each installed on its own in a cache folder outside the
// workspace install, `<cache>/<agent>@<version>`, and reused while it is there.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS } from '../agent-contract/agents.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const pinned = JSON.parse(
  readFileSync(join(here, '..', 'agent-contract', 'package.json'), 'utf8'),
).devDependencies;

/** `SWITCHYARD_SMOKE_CACHE`, else `$XDG_CACHE_HOME/switchyard-smoke` (default ~/.cache). */
export const SMOKE_CACHE =
  process.env.SWITCHYARD_SMOKE_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'switchyard-smoke');

/**
 * The CLIs the smoke run drives. Copilot only with `SWITCHYARD_SMOKE_COPILOT=1`: its first start
 * unpacks about 235 MB, too much for every CI run.
 */
export const SMOKE_AGENTS = [
  'claude-code',
  'codex',
  'gemini-cli',
  'qwen-code',
  ...(process.env.SWITCHYARD_SMOKE_COPILOT === '1' ? ['copilot'] : []),
];

/**
 * Where `agent`'s pinned release lives: package, version, install folder, `command` (the argv
 * prefix that starts it: the binary, or Node and the CLI's script) and `binary`, the file that
 * must exist (the native binary or the script).
 */
export function smokeCli(agent) {
  const spec = AGENTS[agent];
  const version = pinned[spec.pkg];
  const dir = join(SMOKE_CACHE, `${agent}@${version}`);
  const command = spec.command(join(dir, 'node_modules'));
  return { agent, pkg: spec.pkg, version, dir, command, binary: command.at(-1) };
}

/** True when the CLI's binary is in the cache (an install is moved there only when complete). */
export function isSmokeCliInstalled(agent) {
  return existsSync(smokeCli(agent).binary);
}
