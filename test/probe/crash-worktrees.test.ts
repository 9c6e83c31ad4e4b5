import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { git, gitWorkspace, sourceStatus, taskCommits, until } from '../isolation/git-workspace.js';

const approve = { when: { role: 'review' }, steps: [{ review: 'Verdict: APPROVED\n' }] };

describe('a SIGKILLed dispatcher with agents in several worktrees (real git, fake agents)', {
  timeout: 180_000,
}, () => {
  it('on restart no successful run repeats, every task lands once, no worktree is left', async () => {
    const ws = gitWorkspace({ 'src/a.js': 'a0\n' });
    const release = ws.path('.scenario-release');
    const ids = ['g/t1', 'g/t2', 'g/t3'];
    ws.catalog({
      t: {
        scenario: {
          cases: [
            approve,
            ...[...ids, 'g/t4'].map((task, i) => ({
              when: { role: 'worker', task },
              steps: [
                { write: { path: `src/f${i + 1}.js`, content: `f${i + 1}\n` } },
                { waitFor: release },
                { fillChecklist: true },
              ],
            })),
          ],
        },
      },
    });
    for (const [i, id] of ids.entries()) ws.task(id, { files: [`src/f${i + 1}.js`] });
    ws.task('g/t4', { files: ['src/f4.js'], dependsOn: ['t1'] });
    let pid = 0;
    const first = ws.run(['--max-parallel', '3'], {
      onSpawn: (p) => {
        pid = p;
      },
    });
    await Promise.race([
      until(
        () => ws.events().filter((e) => e.type === 'attempt.started').length === 3,
        'three agents in their worktrees',
      ),
      first.then((r) => {
        throw new Error(`the run ended before its agents started: ${r.stdout}`);
      }),
    ]);
    // The real node binary runs the dispatcher (helpers.ts), so the signal reaches it.
    process.kill(pid, 'SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    writeFileSync(release, 'go');
    const second = await ws.run(['--max-parallel', '3']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    // The fake agent records each run: every worker and review exactly once.
    const runs = readFileSync(ws.path('.scenario-t.json.state.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .map((r) => `${r.task}:${r.role}`)
      .sort();
    expect(runs).toEqual([...ids, 'g/t4'].flatMap((t) => [`${t}:review`, `${t}:worker`]).sort());
    const commits = taskCommits(ws);
    expect(commits.map((c) => c.task).sort()).toEqual([...ids, 'g/t4']);
    // The dependent task started from its predecessor's commit.
    const t1 = commits.find((c) => c.task === 'g/t1')!.sha;
    const base = /base commit: (\w+)/.exec(ws.read('agent-task/archive/g/t4/complete.log'))![1]!;
    expect(git(ws.dir, 'merge-base', '--is-ancestor', t1, base)).toBe('');
    expect(sourceStatus(ws)).toBe('');
    expect(git(ws.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(git(ws.dir, 'branch', '--list', 'switchyard/*')).toBe('');
  });
});
