import { SwitchyardError } from '@switchyard/core';
import type { RemoteBranch } from '@switchyard/git-isolation';
import type { PostgresStore } from '@switchyard/store-postgres';

type PgBacklog = Awaited<ReturnType<PostgresStore['backlog']>>;

/**
 * The backlog a clone shares: its remote's canonical URL (the same for the SSH and HTTPS
 * spellings of one repository) and the remote branch its tasks land on, `host/o/r#main`.
 * Clones that land on other branches have other backlogs: a task archived on one branch is no
 * predecessor done on another.
 */
export async function backlogScopeOf(target: RemoteBranch): Promise<string> {
  const { canonicalRemoteUrl } = await import('@switchyard/git-isolation');
  return `${canonicalRemoteUrl(target.url, target.root)}#${target.branch}`;
}

/**
 * Earlier switchyards named a backlog by the remote URL as written, without the branch
 * (`git@host:o/r`, `https://host/o/r`). When this branch has no backlog yet and exactly one
 * scope of that form names the same repository, its records move here (`adopt`): the run
 * finds the tasks it published before. Two such scopes (clones with other spellings each had
 * one) are refused with `SY_STORE_SCOPE`: which one to keep is the user's choice.
 */
export async function adoptEarlierBacklog(
  backlog: PgBacklog,
  target: RemoteBranch,
  scope: string,
  schema: string,
): Promise<{ from: string; rows: number } | undefined> {
  const { canonicalRemoteUrl } = await import('@switchyard/git-isolation');
  const scopes = await backlog.scopes();
  if (scopes.some((s) => s.scope === scope)) return undefined;
  const repository = canonicalRemoteUrl(target.url, target.root);
  const earlier = scopes.filter(
    (s) => !s.scope.includes('#') && canonicalRemoteUrl(s.scope, target.root) === repository,
  );
  const [only, ...more] = earlier;
  if (!only) return undefined;
  if (more.length > 0) {
    const listed = earlier.map((s) => `${s.scope} (${s.tasks} tasks)`).join(', ');
    throw new SwitchyardError(
      'SY_STORE_SCOPE',
      `The store holds ${earlier.length} backlogs of this repository named by an earlier switchyard: ${listed}. This one names the backlog of ${target.branch} ${scope}, and moves only one earlier backlog there.`,
      {
        hint: `Keep the one to go on with and empty the others: finish or resolve their tasks with the switchyard that published them, or delete their rows (\`delete from ${schema}.backlog where scope = '…'\`); then run again.`,
      },
    );
  }
  const moved = await backlog.adopt(only.scope);
  return moved && { from: only.scope, rows: moved.rows };
}
