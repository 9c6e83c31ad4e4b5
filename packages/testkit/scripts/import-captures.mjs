// Regenerates src/fake-agent/captured-faults.json from the real-CLI captures in
// test/agent-contract/fixtures (see test/agent-contract/README.md for recapturing), so the fake
// agent prints provider faults exactly as the real CLIs printed them.
// Run: node packages/testkit/scripts/import-captures.mjs
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../test/agent-contract/fixtures', import.meta.url));
const out = fileURLToPath(new URL('../src/fake-agent/captured-faults.json', import.meta.url));
const INIT = new Set(['system', 'init', 'thread.started', 'turn.started']);
const MAX_LINE = 8192;

const lines = (text) =>
  text
    .split('\n')
    .filter((l, i, all) => l !== '' || i < all.length - 1)
    .map((l) => l.slice(0, MAX_LINE));
const sessionOf = (stdout) => /"(?:session_id|thread_id)":"([^"]+)"/.exec(stdout)?.[1];

const captures = {};
// fixtures/<agent>/<version>[+<variant>]/: the fake agent prints the newest release line
const newest = (agent) =>
  readdirSync(join(root, agent))
    .filter((d) => !d.includes('+'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .at(-1);
for (const agent of readdirSync(root).sort()) {
  const dir = join(root, agent, newest(agent));
  for (const name of readdirSync(dir).sort()) {
    const m = /^(text|jsonl)\.([a-z-]+)\.json$/.exec(name);
    if (!m || m[2] === 'none') continue;
    const c = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    let stdout = lines(c.stdout);
    // the fake agent prints its own init events (with its own session id) first
    if (m[1] === 'jsonl')
      stdout = stdout.filter((l) => {
        try {
          return !INIT.has(JSON.parse(l).type);
        } catch {
          return true;
        }
      });
    captures[`${agent}/${m[1]}/${m[2]}`] = {
      cli: `${c.cli}@${c.version}`,
      session: sessionOf(c.stdout) ?? null,
      stdout,
      stderr: lines(c.stderr),
      exitCode: c.exitCode ?? 1,
    };
  }
}
writeFileSync(out, `${JSON.stringify(captures, null, 1)}\n`);
console.log(`${Object.keys(captures).length} captured faults -> ${out}`);
