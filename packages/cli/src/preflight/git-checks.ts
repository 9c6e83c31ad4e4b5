import type { Problem } from '@switchyard/core/dry-run';
import { type GitFacts, gitFacts, gitFix, gitLine, gitRun } from './git-facts.js';
import type { PreflightCheck, PreflightContext } from './registry.js';

/** Checks that matter when tasks are committed onto the source branch (worktree isolation). */
const underWorktrees = (ctx: PreflightContext) =>
  ctx.isolation === 'worktree' && ctx.tasks.length > 0;

/** Runs `check` with the repository's facts (nothing to check outside git). */
const withFacts =
  (check: (ctx: PreflightContext, facts: GitFacts) => Promise<Problem[]>) =>
  async (ctx: PreflightContext): Promise<Problem[]> => {
    const facts = await gitFacts(ctx);
    return facts ? check(ctx, facts) : [];
  };

const NO_ISOLATION =
  'or set isolation: "none" in the project config (tasks then share the workspace)';

/** Git must know who commits: each task lands as one commit made by the dispatcher. */
export const gitIdentityCheck: PreflightCheck = {
  name: 'git-identity',
  what: 'git knows the author and committer of the task commits',
  applies: underWorktrees,
  run: withFacts(async (ctx, facts) => {
    const [author, committer] = await Promise.all(
      ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT'].map((v) =>
        gitRun(ctx, facts.repo.root, ['var', v]),
      ),
    );
    if (author?.exitCode === 0 && committer?.exitCode === 0) return [];
    const [name, email] = await Promise.all(
      ['user.name', 'user.email'].map((key) => gitLine(ctx, facts.repo.root, ['config', key])),
    );
    const missing = [
      ...(name ? [] : [['user.name', 'Your Name']]),
      ...(email ? [] : [['user.email', 'you@example.com']]),
    ];
    // Set but refused (e.g. an empty name): git's own last line says why.
    const why = (author?.exitCode === 0 ? committer : author)?.stderr.trim().split('\n').at(-1);
    return [
      {
        code: 'SY_PREFLIGHT_GIT_IDENTITY',
        message: `git has no identity to commit with in ${facts.repo.root}${missing.length ? ` (${missing.map(([k]) => k).join(' and ')} not set)` : ''}: every task would be done and reviewed, then fail at its commit${why ? ` (git: ${why})` : ''}`,
        hint: 'set it once for your account (--global), or drop --global to set it for this repository only',
        fix: (missing.length ? missing : [['user.email', 'you@example.com']])
          .map(([key, value]) => `git config --global ${key} ${JSON.stringify(value)}`)
          .join(' && '),
        severity: 'error',
      },
    ];
  }),
};

/** A task worktree starts from the source branch's tip: there must be one. */
export const firstCommitCheck: PreflightCheck = {
  name: 'first-commit',
  what: 'the source branch has a commit to start task worktrees from',
  applies: underWorktrees,
  run: withFacts(async (ctx, facts) => {
    if (facts.head || !facts.branch) return [];
    // Files already there are what the tasks build on: the first commit takes them.
    const files = await gitRun(ctx, facts.repo.root, ['status', '--porcelain']);
    const commit = gitFix(facts, 'commit', '-m', 'Initial commit');
    return [
      {
        code: 'SY_PREFLIGHT_NO_COMMIT',
        message: `branch ${facts.branch} of ${facts.repo.root} has no commit yet: a task worktree has nothing to start from`,
        hint: `commit what the tasks build on (check git status first), ${NO_ISOLATION}`,
        fix: files.stdout.trim()
          ? `${gitFix(facts, 'add', '-A')} && ${commit}`
          : gitFix(facts, 'commit', '--allow-empty', '-m', 'Initial commit'),
        severity: 'error',
      },
    ];
  }),
};

/** Tasks land on a branch: a detached HEAD has none. */
export const detachedHeadCheck: PreflightCheck = {
  name: 'detached-head',
  what: 'the source checkout is on a branch',
  applies: underWorktrees,
  run: withFacts(async (ctx, facts) => {
    if (facts.branch || !facts.head) return [];
    // A branch already at HEAD is the one to switch to; else a new one keeps the commit.
    const at = await gitLine(ctx, facts.repo.root, [
      'for-each-ref',
      '--points-at',
      'HEAD',
      '--count=1',
      '--format=%(refname:short)',
      'refs/heads/',
    ]);
    return [
      {
        code: 'SY_PREFLIGHT_DETACHED_HEAD',
        message: `${facts.repo.root} has a detached HEAD (${facts.head.slice(0, 12)}): tasks are committed onto a branch`,
        hint: `check out the branch tasks should land on, ${NO_ISOLATION}`,
        fix: at ? gitFix(facts, 'switch', at) : gitFix(facts, 'switch', '-c', 'switchyard-work'),
        severity: 'error',
      },
    ];
  }),
};

/** A run that pushes its commits needs to know where to. */
export const upstreamCheck: PreflightCheck = {
  name: 'upstream',
  what: 'the source branch has an upstream to push to',
  applies: (ctx) => ctx.pushes && underWorktrees(ctx),
  run: withFacts(async (ctx, facts) => {
    if (!facts.branch) return []; // the detached-head check reports it
    const upstream = await gitLine(ctx, facts.repo.root, [
      'rev-parse',
      '--abbrev-ref',
      '--symbolic-full-name',
      `${facts.branch}@{upstream}`,
    ]);
    if (upstream) return [];
    const remote = (await gitLine(ctx, facts.repo.root, ['remote'])) ?? 'origin';
    return [
      {
        code: 'SY_PREFLIGHT_NO_UPSTREAM',
        message: `branch ${facts.branch} has no upstream, and the run pushes what it lands`,
        hint: 'push the branch once with -u (or set one with git branch --set-upstream-to)',
        fix: gitFix(facts, 'push', '-u', remote, facts.branch),
        severity: 'error',
      },
    ];
  }),
};
