import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../dispatcher/helpers.js';
import { git, gitWorkspace, sourceStatus } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('a workspace in a subfolder of the repository (real git, fake agent)', {
  timeout: 120_000,
}, () => {
  it('runs in that subfolder of the task worktree even before the subfolder is committed', async () => {
    // The repository root holds the user's files; the workspace is a new, untracked pkg/.
    const repo = gitWorkspace({ 'README.md': 'r\n', 'src/other.js': 'o\n' });
    const pkg = repo.path('pkg');
    mkdirSync(repo.path('pkg/agent-task/g/a'), { recursive: true });
    writeFileSync(
      repo.path('pkg/agent-task/g/a/PLAN.md'),
      [
        '---',
        'route: cloud-G01',
        '---',
        '# g/a',
        '',
        '## Modified Files Summary',
        '',
        '- lib/a.js',
        '',
        '## Implementation Checklist',
        '',
        '- [ ] do the work',
        '',
      ].join('\n'),
    );
    writeFileSync(repo.path('pkg/switchyard.config.json'), '{"retry":{"baseDelayMs":5}}\n');
    repo.catalog({
      t: {
        scenario: {
          cases: [approve],
          steps: [{ write: { path: 'lib/a.js', content: 'lib\n' } }, { fillChecklist: true }],
        },
      },
    });
    writeFileSync(repo.path('src/other.js'), 'user edit\n');
    const result = await runCli([
      'run',
      '--workspace',
      pkg,
      '--execution-catalog',
      repo.catalogFile,
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const finished = readFileSync(repo.path('pkg/agent-task/.switchyard/events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'attempt.finished');
    expect(finished.map((e) => e.result)).toEqual(['success', 'success']);
    // One commit with the task's file at its repository path; the user's edits are kept.
    expect(git(repo.dir, 'show', '--name-only', '--format=%s', 'main')).toBe('g/a\n\npkg/lib/a.js');
    expect(repo.read('pkg/lib/a.js')).toBe('lib\n');
    expect(repo.read('src/other.js')).toBe('user edit\n');
    expect(sourceStatus(repo)).toBe('M src/other.js\n?? pkg/switchyard.config.json');
  });
});
