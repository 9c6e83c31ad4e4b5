import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { planLoopOf, reviewLoopOf, stateDir } from '@switchyard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadTask, loadWorkspace, loadWorkspaceAsync } from './load.js';

let ws: string;
const write = (rel: string, text: string) => {
  mkdirSync(dirname(join(ws, rel)), { recursive: true });
  writeFileSync(join(ws, rel), text);
};
const plan = (route: string, files: string[], deps: string[] = [], extra = '') =>
  `---\nroute: ${route}\n${deps.length ? `depends_on: [${deps.join(', ')}]\n` : ''}${extra}---\n## Modified Files Summary\n\n${files.map((f) => `- ${f}`).join('\n')}\n\n## Implementation Checklist\n\n- [ ] do it\n`;

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'sy-load-'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loadWorkspace', () => {
  it('reads every group, follow-up plans, the archive and reserved names', () => {
    write(
      'agent-task/api/add-flag/PLAN.md',
      plan('cloud-G01', ['src/flag.ts'], ['db/schema', 'old/done']),
    );
    write(
      'agent-task/api/add-flag/PLAN-2.md',
      '## Modified Files Summary\n\n- src/flag.test.ts\n\n## Implementation Checklist\n\n- [x] fix\n',
    );
    write('agent-task/api/add-flag/CODE_REVIEW-1.md', 'Verdict: CHANGES_REQUESTED\n');
    write('agent-task/db/schema/PLAN.md', plan('local-G02', ['db/schema.sql']));
    write('agent-task/archive/old/done/complete.log', 'ok\n');
    write('agent-task/archive/old/half/PLAN.md', 'x');
    write('agent-task/.switchyard/claims/claims.json', '{}');
    write('agent-task/.hidden/x/PLAN.md', 'not a task');
    write('agent-task/api/WORK_LOG.md', 'rows');
    // The retrospectives switchyard writes are no task group (nor offered to --task-group).
    write('agent-task/retros/2026-12-01-r1.md', '# Retro\n');
    const model = loadWorkspace(ws);
    expect(model.groups).toEqual(['api', 'db']);
    expect(model.tasks.map((t) => t.id)).toEqual(['api/add-flag', 'db/schema']);
    const task = model.tasks[0];
    expect(task).toMatchObject({
      planLoop: 2,
      planLoops: [1, 2],
      reviewLoops: [1],
      route: 'cloud-G01',
      valid: true,
    });
    expect(task?.writeSet.map((e) => e.path)).toEqual(['src/flag.ts', 'src/flag.test.ts']);
    expect(task?.checklist).toEqual([{ checked: true, text: 'fix', line: 7 }]);
    expect(task?.dependsOn.map((d) => d.id)).toEqual(['db/schema', 'old/done']);
    expect([...model.archived.values()]).toEqual([
      { id: 'old/done', dir: join(ws, 'agent-task/archive/old/done'), complete: true },
      { id: 'old/half', dir: join(ws, 'agent-task/archive/old/half'), complete: false },
    ]);
    expect(model.problems.map((p) => [p.severity, p.message])).toEqual([
      ['warning', 'archived task old/half has no complete.log; it does not count as complete'],
    ]);
  });

  it('marks tasks with unknown dependencies, cycles or bad plans invalid, others stay valid', () => {
    write('agent-task/g/a/PLAN.md', plan('local-G01', ['a.ts'], ['b']));
    write('agent-task/g/b/PLAN.md', plan('local-G01', ['b.ts'], ['a']));
    write('agent-task/g/c/PLAN.md', plan('local-G01', ['c.ts'], ['nope']));
    write('agent-task/g/d/PLAN.md', plan('local-G01', ['../escape.ts']));
    write('agent-task/g/e/PLAN.md', plan('local-G01', ['e.ts']));
    write('agent-task/g/f/notes.md', 'no plan here');
    const model = loadWorkspace(ws);
    expect(Object.fromEntries(model.tasks.map((t) => [t.id, t.valid]))).toEqual({
      'g/a': false,
      'g/b': false,
      'g/c': false,
      'g/d': false,
      'g/e': true,
      'g/f': false,
    });
    expect(model.tasks.find((t) => t.id === 'g/a')?.problems.map((p) => p.message)).toEqual([
      'dependency cycle: g/a -> g/b -> g/a',
    ]);
    expect(
      model.tasks.find((t) => t.id === 'g/c')?.problems.map((p) => [p.file, p.line, p.message]),
    ).toEqual([['agent-task/g/c/PLAN.md', 3, 'task g/c depends on unknown task g/nope']]);
    expect(model.tasks.find((t) => t.id === 'g/f')?.problems.map((p) => p.message)).toEqual([
      'task g/f has no PLAN.md',
    ]);
  });

  it('refuses a follow-up plan that changes the route', () => {
    write('agent-task/g/a/PLAN.md', plan('local-G01', ['a.ts']));
    write('agent-task/g/a/PLAN-2.md', plan('cloud-G01', ['a.ts']));
    const task = loadWorkspace(ws).tasks[0];
    expect(task?.valid).toBe(false);
    expect(task?.problems.map((p) => [p.file, p.line, p.message])).toEqual([
      ['agent-task/g/a/PLAN-2.md', 2, 'route "cloud-G01" differs from PLAN.md ("local-G01")'],
    ]);
  });

  it('reports a plan lying in agent-task/ or in a group folder, where no run would see it', () => {
    write('agent-task/fix-bug/PLAN.md', plan('cloud-G01', ['a.ts']));
    write('agent-task/PLAN-2.md', plan('cloud-G01', ['b.ts']));
    write('agent-task/g/ok/PLAN.md', plan('cloud-G01', ['c.ts']));
    write('agent-task/g/WORK_LOG.md', 'rows');
    const model = loadWorkspace(ws);
    expect(model.tasks.map((t) => [t.id, t.valid])).toEqual([['g/ok', true]]);
    expect(model.problems.map((p) => [p.severity, p.file, p.message, p.hint])).toEqual([
      [
        'error',
        join(ws, 'agent-task/PLAN-2.md'),
        "this plan is not in a task folder, so no run sees it (a task's plan is agent-task/<group>/<task>/PLAN.md)",
        'move it into a task folder of its own, e.g. agent-task/<group>/<task>/PLAN.md',
      ],
      [
        'error',
        join(ws, 'agent-task/fix-bug/PLAN.md'),
        "this plan is not in a task folder, so no run sees it (a task's plan is agent-task/<group>/<task>/PLAN.md)",
        'move it into a task folder of its own, e.g. agent-task/fix-bug/<task>/PLAN.md',
      ],
    ]);
  });

  it('reports a workspace without agent-task/', () => {
    expect(loadWorkspace(ws).problems.map((p) => p.message)).toEqual([
      `no agent-task/ folder in ${ws}`,
    ]);
  });
});

// Plans changed in the last 100 ms of the cache's clock are not cached (their identity may
// still change unseen). The tests set that clock instead of waiting on the real one.
/** A clock a minute ahead: every file written so far has settled. */
const settled = () => Date.now() + 60_000;
/** A clock stopped at the change time of `rel`: that file changed this very moment. */
const changedJustNow = (rel: string) => () => statSync(join(ws, rel)).ctimeMs;

describe('loadWorkspace with the plan cache', () => {
  it('reuses unchanged plans, re-parses changed ones and always re-checks paths', async () => {
    const { readFileSync, symlinkSync, mkdirSync: mk } = await import('node:fs');
    write('agent-task/g/a/PLAN.md', plan('local-G01', ['`src/a.ts` — first change']));
    write('agent-task/g/b/PLAN.md', plan('local-G01', ['linked/b.ts']));
    const first = loadWorkspace(ws, { cache: true, now: settled });
    expect(first.tasks.flatMap((t) => t.problems)).toEqual([]);
    const cacheFile = join(stateDir(ws), 'cache', 'plans.json');
    // written entry by entry, yet the same compact JSON one stringify gives
    const cached = readFileSync(cacheFile, 'utf8');
    expect(cached).toContain('— first change');
    expect(cached).toBe(JSON.stringify(JSON.parse(cached)));
    // same files: same result from the cache
    const second = loadWorkspace(ws, { cache: true, now: settled });
    expect(second.tasks.map((t) => t.writeSet)).toEqual(first.tasks.map((t) => t.writeSet));
    // a changed plan is parsed again
    write('agent-task/g/a/PLAN.md', plan('cloud-G09', ['src/a.ts', 'src/extra.ts']));
    const third = loadWorkspace(ws, { cache: true, now: settled });
    expect(third.tasks[0]).toMatchObject({ route: 'cloud-G09' });
    expect(third.tasks[0]?.writeSet.map((e) => e.path)).toEqual(['src/a.ts', 'src/extra.ts']);
    // the plan did not change, but the workspace did: a symlink now escapes
    const outside = mkdtempSync(join(tmpdir(), 'sy-out-'));
    mk(join(outside, 'x'));
    symlinkSync(outside, join(ws, 'linked'));
    const fourth = loadWorkspace(ws, { cache: true, now: settled });
    expect(fourth.tasks[1]?.valid).toBe(false);
    expect(fourth.tasks[1]?.problems[0]?.message).toMatch(/outside the workspace/);
    rmSync(outside, { recursive: true, force: true });
  });

  it('does not cache a plan changed moments ago: a same-size rewrite in that moment is seen', async () => {
    const { readFileSync } = await import('node:fs');
    const unchecked = `${plan('local-G01', ['src/a.ts'])}\n## Implementation Checklist\n\n- [ ] step\n`;
    const now = changedJustNow('agent-task/g/a/PLAN.md');
    write('agent-task/g/a/PLAN.md', unchecked);
    expect(loadWorkspace(ws, { cache: true, now }).tasks[0]?.checklist[0]?.checked).toBe(false);
    // the same size, and (on a coarse file clock) possibly the same mtime and ctime
    write('agent-task/g/a/PLAN.md', unchecked.replace('- [ ]', '- [x]'));
    expect(loadWorkspace(ws, { cache: true, now }).tasks[0]?.checklist[0]?.checked).toBe(true);
    const cached = JSON.parse(readFileSync(join(stateDir(ws), 'cache', 'plans.json'), 'utf8'));
    expect(cached.entries).toEqual({});
    // once the file has settled it is cached
    loadWorkspace(ws, { cache: true, now: settled });
    const later = JSON.parse(readFileSync(join(stateDir(ws), 'cache', 'plans.json'), 'utf8'));
    expect(Object.keys(later.entries)).toEqual(['agent-task/g/a/PLAN.md']);
  });

  it('ignores a corrupt cache file', () => {
    write('agent-task/g/a/PLAN.md', plan('local-G01', ['src/a.ts']));
    write('agent-task/.switchyard/cache/plans.json', '{not json');
    expect(loadWorkspace(ws, { cache: true }).tasks[0]?.valid).toBe(true);
  });
});

describe('loadWorkspaceAsync', () => {
  it('gives the model loadWorkspace gives, and shares its plan cache', async () => {
    write('agent-task/g/a/PLAN.md', plan('local-G01', ['src/a.ts']));
    write('agent-task/g/b/PLAN.md', plan('nowhere', ['../up.ts'], ['a', 'missing']));
    write('agent-task/g/b/PLAN-2.md', '## Modified Files Summary\n\n- src/b.ts\n');
    write('agent-task/h/empty/notes.md', 'no plan\n');
    write('agent-task/archive/g/old/PLAN.md', plan('local-G01', ['src/o.ts']));
    // The texts the plans were parsed from come only with a read that is not cached (what the
    // dispatcher admits); the rest is the same.
    const strip = ({ graph: _graph, ...model }: ReturnType<typeof loadWorkspace>) => ({
      ...model,
      tasks: model.tasks.map(({ planTexts: _texts, ...task }) => task),
    });
    const sync = loadWorkspace(ws);
    expect(sync.tasks.find((t) => t.id === 'g/a')?.planTexts).toEqual([
      { loop: 1, text: plan('local-G01', ['src/a.ts']) },
    ]);
    const loaded = await loadWorkspaceAsync(ws, { cache: true, now: settled });
    await loaded.cacheWritten;
    const { cacheWritten: _written, ...model } = loaded;
    expect(strip(model)).toEqual(strip(sync));
    expect(model.graph.problems).toEqual(sync.graph.problems);
    const cacheFile = join(stateDir(ws), 'cache', 'plans.json');
    const { readFileSync, statSync } = await import('node:fs');
    const entries = Object.keys(JSON.parse(readFileSync(cacheFile, 'utf8')).entries);
    expect(entries.sort()).toEqual([
      'agent-task/g/a/PLAN.md',
      'agent-task/g/b/PLAN-2.md',
      'agent-task/g/b/PLAN.md',
    ]);
    // unchanged plans: served from the cache (not rewritten), same model
    const before = statSync(cacheFile).mtimeMs;
    const again = await loadWorkspaceAsync(ws, { cache: true, now: settled });
    await again.cacheWritten;
    expect(statSync(cacheFile).mtimeMs).toBe(before);
    const { cacheWritten: _again, ...againModel } = again;
    expect(strip(againModel)).toEqual(strip(sync));
  });
});

describe('paths', () => {
  it('names plan and review loops and the state dir', () => {
    expect(
      ['PLAN.md', 'PLAN-2.md', 'PLAN-10.md', 'PLAN-1.md', 'PLAN-02.md', 'plan.md'].map(planLoopOf),
    ).toEqual([1, 2, 10, undefined, undefined, undefined]);
    expect(['CODE_REVIEW-1.md', 'CODE_REVIEW-0.md', 'CODE_REVIEW.md'].map(reviewLoopOf)).toEqual([
      1,
      undefined,
      undefined,
    ]);
    expect(stateDir('/w')).toBe('/w/agent-task/.switchyard');
  });
});

describe('loadTask', () => {
  it('reads one task exactly as the whole-workspace load does, without the other tasks', () => {
    write('agent-task/api/add-flag/PLAN.md', plan('cloud-G01', ['src/flag.ts'], ['db/schema']));
    write(
      'agent-task/api/add-flag/PLAN-2.md',
      '## Modified Files Summary\n\n- src/flag.test.ts\n\n## Implementation Checklist\n\n- [ ] fix\n',
    );
    write('agent-task/db/schema/PLAN.md', plan('local-G02', ['db/schema.sql']));
    write('agent-task/db/broken/PLAN.md', '---\nroute: nowhere\n---\n');
    const model = loadWorkspace(ws);
    for (const id of ['api/add-flag', 'db/schema']) {
      expect(loadTask(ws, id)).toEqual(model.tasks.find((t) => t.id === id));
    }
    expect(loadTask(ws, 'db/broken')?.valid).toBe(false);
    expect(loadTask(ws, 'db/gone')).toBeUndefined();
    // A folder both active and archived is a problem of that task.
    write('agent-task/archive/db/schema/complete.log', 'ok\n');
    expect(loadTask(ws, 'db/schema')?.problems.map((p) => p.message)).toContain(
      'task db/schema is both active and archived',
    );
  });
});
