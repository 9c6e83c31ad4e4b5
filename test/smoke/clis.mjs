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

/** The two CLIs the smoke run drives. */
export const SMOKE_AGENTS = ['claude-code', 'codex'];

/** Where `agent`'s pinned release lives: package, version, install folder, binary. */
export function smokeCli(agent) {
  const spec = AGENTS[agent];
  const version = pinned[spec.pkg];
  const dir = join(SMOKE_CACHE, `${agent}@${version}`);
  const [binary] = spec.command(join(dir, 'node_modules'));
  return { agent, pkg: spec.pkg, version, dir, binary };
}

/** True when the CLI's binary is in the cache (an install is moved there only when complete). */
export function isSmokeCliInstalled(agent) {
  return existsSync(smokeCli(agent).binary);
}
