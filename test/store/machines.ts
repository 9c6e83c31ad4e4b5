import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBin } from '@switchyard/testkit/postgres';
import { Workspace } from '../dispatcher/helpers.js';
import { git } from '../isolation/git-workspace.js';

// Several machines simulated on one host for the shared-store tests: a bare remote, and per
// machine its own clone of it (tracking origin/main) with the tasks.

/** Why the PostgreSQL tests are skipped here (no server installed), or undefined. */
export const pgMissing = (() => {
  try {
    postgresBin();
    return undefined;
  } catch (error) {
    return String(error);
  }
})();

/** A bare remote with a first commit on `main` (the dispatchers' own files ignored). */
export function bareRemote(dirs: string[]): string {
  const base = mkdtempSync(join(tmpdir(), 'sy-remote-'));
  dirs.push(base);
  const remote = join(base, 'remote.git');
  git(base, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = new Workspace();
  dirs.push(seed.dir);
  git(seed.dir, 'init', '-q', '-b', 'main');
  execFileSync(
    'sh',
    [
      '-c',
      `printf 'agent-task/\\n.catalog.json\\n.scenario-*\\nswitchyard.config.json\\n' > .gitignore && printf 'base\\n' > shared.txt`,
    ],
    { cwd: seed.dir },
  );
  const who = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];
  git(seed.dir, ...who, 'add', '-A');
  git(seed.dir, ...who, 'commit', '-q', '-m', 'init');
  git(seed.dir, 'push', '-q', remote, 'main');
  return remote;
}

/** A machine: its own clone of the remote (on `main`, tracking origin/main) with the tasks. */
export function machine(
  dirs: string[],
  remote: string,
  config: Record<string, unknown>,
  tasks: (ws: Workspace) => void,
): Workspace {
  const ws = new Workspace();
  dirs.push(ws.dir);
  git(ws.dir, 'init', '-q', '-b', 'main');
  git(ws.dir, 'config', 'user.name', 'Machine');
  git(ws.dir, 'config', 'user.email', 'machine@example.com');
  git(ws.dir, 'remote', 'add', 'origin', remote);
  git(ws.dir, 'fetch', '-q', 'origin');
  git(ws.dir, 'checkout', '-q', '-f', '-B', 'main', 'origin/main');
  git(ws.dir, 'branch', '-q', '--set-upstream-to=origin/main');
  ws.config(config);
  tasks(ws);
  return ws;
}
