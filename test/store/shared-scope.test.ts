import { describe, expect, it } from 'vitest';
import { runCli, type Workspace } from '../dispatcher/helpers.js';
import { git } from '../isolation/git-workspace.js';
import { NO_STORE_ENV, pgMissing, sharedDatabase } from './machines.js';

// Which backlog a clone shares: its remote's canonical URL and the branch it lands on. The
// clones' remotes are spelled as SSH and HTTPS URLs of a host that does not exist, which
// `url.<bare>.insteadOf` turns into the one local bare repository for fetch and push.
if (pgMissing) console.warn(`skipping the backlog scope tests: ${pgMissing}`);
const { db, sql, bareRemote, machine } = sharedDatabase('scope');

const SSH = 'git@Git.Example.test:team/repo.git';
const HTTPS = 'https://user:token@git.example.test/team/repo';
const CANONICAL = 'git.example.test/team/repo';

/** A machine's clone whose origin is spelled `spelling`, on `branch` tracking origin's. */
function cloneAs(remote: string, spelling: string, branch = 'main'): Workspace {
  const ws = machine(remote, { store: { url: db.url } });
  git(ws.dir, 'config', `url.${remote}.insteadOf`, spelling);
  git(ws.dir, 'remote', 'set-url', 'origin', spelling);
  git(ws.dir, 'fetch', '-q', 'origin');
  if (branch !== 'main') {
    git(ws.dir, 'checkout', '-q', '-B', branch, `origin/${branch}`);
    git(ws.dir, 'branch', '-q', `--set-upstream-to=origin/${branch}`);
  }
  ws.task('g/a', { files: ['a.txt'] });
  return ws;
}

async function submit(ws: Workspace) {
  const result = await runCli(['submit', '--store', db.url, '--workspace', ws.dir, '--json'], {
    env: NO_STORE_ENV,
  });
  expect(result.code, result.stderr).toBe(0);
  return {
    ...(JSON.parse(result.stdout) as { published: number; existing: number; scope: string }),
    stderr: result.stderr,
  };
}

const backlogRows = () =>
  sql('select scope, task, status from switchyard.backlog order by scope, task')
    .split('\n')
    .filter(Boolean);

describe.skipIf(pgMissing)('the backlog a clone shares', { timeout: 240_000 }, () => {
  it('SSH and HTTPS clones of one repository share one backlog; a clone on another branch has its own', async () => {
    const remote = bareRemote();
    git(remote, 'branch', 'feature', 'main');
    const ssh = cloneAs(remote, SSH);
    const https = cloneAs(remote, HTTPS);
    const feature = cloneAs(remote, SSH, 'feature');
    // Both spellings reach the bare repository: fetch and push work as in a real clone.
    for (const ws of [ssh, https, feature])
      expect(git(ws.dir, 'ls-remote', 'origin', 'main')).toContain('refs/heads/main');

    expect(await submit(ssh)).toMatchObject({ published: 1, scope: `${CANONICAL}#main` });
    expect(await submit(https)).toMatchObject({
      published: 0,
      existing: 1,
      scope: `${CANONICAL}#main`,
    });
    expect(await submit(feature)).toMatchObject({ published: 1, scope: `${CANONICAL}#feature` });
    expect(backlogRows()).toEqual([
      `${CANONICAL}#feature|g/a|ready`,
      `${CANONICAL}#main|g/a|ready`,
    ]);
    const status = await runCli(['store', 'status', '--store', db.url], { env: NO_STORE_ENV });
    expect(status.stdout).toContain(`${CANONICAL}#main: 1 ready`);
  });

  it('a backlog an earlier switchyard named by the raw remote URL is found and moved to the new name', async () => {
    const remote = bareRemote();
    const spelled = 'git@git.example.test:team/earlier.git';
    const ws = cloneAs(remote, spelled);
    // Published by this switchyard, then renamed to what earlier ones called it (the URL as
    // written, without `.git` and the branch), with its task taken by a machine that died.
    expect(await submit(ws)).toMatchObject({ published: 1 });
    const earlier = 'git@git.example.test:team/earlier';
    const scope = 'git.example.test/team/earlier#main';
    for (const table of ['backlog', 'leases', 'events'])
      sql(`update switchyard.${table} set scope = '${earlier}' where scope = '${scope}'`);
    sql(`update switchyard.backlog set status = 'taken' where scope = '${earlier}'`);
    sql(
      `insert into switchyard.leases values ('${earlier}', 'g/a', 'gone', nextval('switchyard.lease_tokens'), 0, 0, false)`,
    );
    expect(backlogRows()).toContain(`${earlier}|g/a|taken`);

    const again = await submit(ws);
    expect(again).toMatchObject({ published: 0, existing: 1, scope });
    expect(again.stderr).toContain(`the backlog ${earlier} (named by an earlier switchyard)`);
    expect(backlogRows()).toContain(`${scope}|g/a|taken`);
    expect(sql(`select count(*) from switchyard.leases where scope = '${earlier}'`)).toBe('0');
    expect(sql(`select holder from switchyard.leases where scope = '${scope}'`)).toBe('gone');
    // The next opening finds the new name in use and moves nothing.
    expect((await submit(ws)).stderr).not.toContain('earlier switchyard');
  });
});
