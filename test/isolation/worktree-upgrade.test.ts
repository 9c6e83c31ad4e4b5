import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  git,
  gitWorkspace,
  sourceStatus,
  taskCommits,
  until,
  worktreeOf,
} from './git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };
// The definition of done needs both halves of the work: the one written before the upgrade too.
const CHECK = `const fs = require('node:fs');
const ok = fs.readFileSync('src/half.js', 'utf8') === 'half\\n' && fs.readFileSync('src/rest.js', 'utf8') === 'rest\\n';
process.exit(ok ? 0 : 1);
`;

/** Rewrites the `path` and `workdir` a JSON file (a record, or a state's `isolation`) holds. */
function pointAt(file: string, to: string, key?: string): void {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  const facts = key ? json[key] : json;
  facts.path = to;
  facts.workdir = to;
  writeFileSync(file, JSON.stringify(json, null, 2));
}

describe('an upgrade from worktrees nested in the state folder (real git, fake agents)', {
  timeout: 240_000,
}, () => {
  it('a run killed mid-attempt, its worktree where an earlier version kept it: the next run moves it out with the work in progress, which lands', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a\n', 'check.cjs': CHECK });
    const halfWritten = ws.path('.scenario-half-written');
    const release = ws.path('.scenario-release');
    const agentGone = ws.path('.scenario-agent-gone');
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            {
              // Work in progress when the dispatcher dies: half written, the agent still busy.
              when: { role: 'worker', attempt: 1 },
              steps: [
                { write: { path: 'src/half.js', content: 'half\n' } },
                { write: { path: halfWritten, content: 'yes\n' } },
                { waitFor: release },
                { write: { path: agentGone, content: 'yes\n' } },
              ],
            },
          ],
          steps: [{ write: { path: 'src/rest.js', content: 'rest\n' } }, { fillChecklist: true }],
        },
      },
    });
    ws.task('g/a', {
      files: ['src/half.js', 'src/rest.js'],
      done: { command: `${process.execPath} check.cjs`, assertion: 'exit code 0' },
    });
    let pid = 0;
    const first = ws.run([], {
      onSpawn: (p) => {
        pid = p;
      },
    });
    await until(() => existsSync(halfWritten), 'the first attempt to write half of its work');
    process.kill(pid, 'SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    writeFileSync(release, 'go\n');
    await until(() => existsSync(agentGone), 'the orphaned agent to end');

    // What an earlier version left: the worktree nested in the state folder, its record and the
    // task's state pointing there.
    const current = worktreeOf(ws, 'g/a')!;
    const legacy = ws.path('agent-task/.switchyard/worktrees/g/a');
    mkdirSync(dirname(legacy), { recursive: true });
    git(ws.dir, 'worktree', 'move', current, legacy);
    pointAt(ws.path('agent-task/.switchyard/isolation/worktrees/g/a.json'), legacy);
    pointAt(ws.path('agent-task/.switchyard/tasks/g/a.json'), legacy, 'isolation');
    expect(readFileSync(`${legacy}/src/half.js`, 'utf8')).toBe('half\n');

    const second = await ws.run();
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const moves = ws
      .events()
      .filter((e) => e.type === 'task.isolation' && e.step === 'worktree')
      .map((e) => e.detail);
    expect(moves).toContain(`worktree moved from ${legacy} to ${current}`);
    // The work written before the upgrade landed with the rest, in the task's one commit.
    const commits = taskCommits(ws);
    expect(commits.map((c) => c.task)).toEqual(['g/a']);
    expect(git(ws.dir, 'show', '--name-only', '--format=', commits[0]!.sha).split('\n')).toEqual([
      'src/half.js',
      'src/rest.js',
    ]);
    expect(
      ws.events().filter((e) => e.type === 'attempt.started' && e.role === 'worker').length,
    ).toBeGreaterThanOrEqual(2);
    // Nothing is left nested in the repository, and the source checkout is clean.
    expect(existsSync(ws.path('agent-task/.switchyard/worktrees'))).toBe(false);
    expect(git(ws.dir, 'worktree', 'list', '--porcelain')).not.toContain(legacy);
    expect(sourceStatus(ws)).toBe('');
  });
});
