import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { newTaskState } from '@switchyard/core';
import { openClaimStore, openStateStore } from '@switchyard/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './catalog-helpers.js';
import { makeWorkspace, plan, SYSTEM_PATH, writeCatalog } from './dry-run-helpers.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A workspace with three groups, an archive, a cross-group dependency and a shared file. */
function fixture() {
  const w = makeWorkspace();
  roots.push(w.root);
  const catalog = writeCatalog(w.root);
  w.write('agent-task/archive/old/done/complete.log', 'ok\n');
  w.write(
    'agent-task/api/add-flag/PLAN.md',
    plan('cloud-G01', ['src/flag.ts', 'src/shared.ts'], { deps: ['old/done'] }),
  );
  w.write(
    'agent-task/api/use-flag/PLAN.md',
    plan('cloud-G02', ['src/use.ts'], { deps: ['add-flag'], target: 't-fast' }),
  );
  w.write('agent-task/db/schema/PLAN.md', plan('local-G03', ['src/shared.ts', 'db/schema.sql']));
  w.write(
    'agent-task/docs/readme/PLAN.md',
    plan('local-G04', ['README.md'], { deps: ['api/use-flag'] }),
  );
  w.write('agent-task/docs/guide/PLAN.md', plan('local-G05', ['docs/guide.md']));
  return { ...w, catalog };
}

const dryRun = async (f: ReturnType<typeof fixture>, ...extra: string[]) => {
  const r = await runCli(
    [
      'run',
      '--dry-run',
      '--json',
      '--workspace',
      f.ws,
      '--execution-catalog',
      f.catalog.path,
      ...extra,
    ],
    {
      env: SYSTEM_PATH,
    },
  );
  return { ...r, doc: r.stdout ? JSON.parse(r.stdout) : undefined };
};
const statusOf = (doc: { tasks: { id: string; status: string }[] }) =>
  Object.fromEntries(doc.tasks.map((t) => [t.id, t.status]));

describe('switchyard run --dry-run', { timeout: 60_000 }, () => {
  it('reports catalog, routes, candidates, readiness, claims and collisions; launches nothing', async () => {
    const f = fixture();
    const { exitCode, doc, stderr } = await dryRun(f);
    expect(stderr).toBe('');
    expect(exitCode).toBe(0);
    expect(existsSync(f.catalog.marker)).toBe(false);
    expect(doc).toMatchObject({
      schema_version: 1,
      kind: 'switchyard.dry-run',
      catalog: {
        valid: true,
        source: { kind: 'flag', path: f.catalog.path },
        revision: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      options: { task_group: null, max_parallel: 3, with: null },
      archived: [{ id: 'old/done', complete: true }],
      collisions: [{ path: 'src/shared.ts', tasks: ['api/add-flag', 'db/schema'] }],
      admission: { admitted: ['api/add-flag', 'docs/guide'] },
      summary: { tasks: 5, in_scope: 5, admitted: 2, errors: 0 },
      problems: [],
    });
    expect(statusOf(doc)).toEqual({
      'api/add-flag': 'admitted',
      'api/use-flag': 'waiting-dependencies',
      'db/schema': 'waiting-claim',
      'docs/guide': 'admitted',
      'docs/readme': 'waiting-dependencies',
    });
    const byId = Object.fromEntries(doc.tasks.map((t: { id: string }) => [t.id, t]));
    expect(byId['api/add-flag'].stages).toEqual({
      worker: { selected: 't-main', selected_by: 'route', candidates: ['t-main', 't-fast'] },
      review: { selected: 't-fast', selected_by: 'route', candidates: ['t-fast'] },
    });
    expect(byId['api/use-flag'].stages.worker).toMatchObject({
      selected: 't-fast',
      selected_by: 'pin',
    });
    expect(byId['db/schema']).toMatchObject({
      serialized_with: ['api/add-flag'],
      waiting_on: ['api/add-flag'],
    });
    expect(byId['docs/readme']).toMatchObject({
      depends_on: ['api/use-flag'],
      waiting_on: ['api/use-flag'],
    });
  });

  it('prints a readable report and exits 0', async () => {
    const f = fixture();
    const r = await runCli(['run', '--dry-run', '--execution-catalog', f.catalog.path], {
      cwd: f.ws,
      env: SYSTEM_PATH,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('nothing was launched');
    expect(r.stdout).toMatch(/api\/use-flag {2}cloud-G02 {2}waiting-dependencies/);
    expect(r.stdout).toContain('src/shared.ts: api/add-flag, db/schema');
    expect(r.stdout).toContain('Would start now: api/add-flag, docs/guide');
  });

  it('honours --task-group, --max-parallel and --with; the limit counts the whole workspace', async () => {
    const f = fixture();
    const grouped = await dryRun(
      f,
      '--task-group',
      'docs',
      '--max-parallel',
      '1',
      '--with',
      't-fast',
    );
    expect(grouped.exitCode).toBe(0);
    expect(grouped.doc.summary).toMatchObject({ tasks: 5, in_scope: 2 });
    expect(grouped.doc.admission.admitted).toEqual(['docs/guide']);
    expect(statusOf(grouped.doc)['api/add-flag']).toBe('out-of-scope');
    const guide = grouped.doc.tasks.find((t: { id: string }) => t.id === 'docs/guide');
    expect(guide.stages.worker).toMatchObject({ selected: 't-fast', selected_by: 'with' });
    const unlimited = await dryRun(f, '--max-parallel', '0');
    expect(unlimited.doc.options.max_parallel).toBe(0);
    const one = await dryRun(f, '--max-parallel', '1');
    expect(one.doc.admission.admitted).toEqual(['api/add-flag']);
    expect(statusOf(one.doc)['docs/guide']).toBe('waiting-slot');
  });

  it('takes max_parallel from the project config when no flag is given', async () => {
    const f = fixture();
    f.write('switchyard.config.json', JSON.stringify({ maxParallel: 1 }));
    const { doc } = await dryRun(f);
    expect(doc.options.max_parallel).toBe(1);
  });

  it('shows held claims from the state dir and serializes against them', async () => {
    const f = fixture();
    const store = await openClaimStore(join(f.ws, 'agent-task/.switchyard'));
    await store.tryClaim('docs/guide', ['docs/guide.md', 'src/flag.ts']);
    const { doc } = await dryRun(f);
    expect(doc.claims).toEqual([
      { task: 'docs/guide', paths: ['docs/guide.md', 'src/flag.ts'], since: expect.any(String) },
    ]);
    expect(statusOf(doc)).toMatchObject({
      'docs/guide': 'admitted',
      'api/add-flag': 'waiting-claim',
      'db/schema': 'admitted',
    });
  });

  it('shows tasks the dispatcher blocked, delays only their dependents, and --retry-blocked lifts them', async () => {
    const f = fixture();
    const state = newTaskState('api/add-flag');
    state.blocked = {
      reason: '10 consecutive worker failures',
      stage: 'worker',
      evidence: ['stream.log'],
      at: new Date().toISOString(),
    };
    await openStateStore(join(f.ws, 'agent-task/.switchyard')).write(state);
    const { doc, exitCode } = await dryRun(f);
    expect(exitCode).toBe(0);
    expect(statusOf(doc)).toMatchObject({
      'api/add-flag': 'blocked',
      'api/use-flag': 'dependency-blocked',
      'docs/readme': 'dependency-blocked',
      'db/schema': 'admitted', // its claim rival is blocked, not holding the file
      'docs/guide': 'admitted',
    });
    expect(doc.tasks.find((t: { id: string }) => t.id === 'api/add-flag').blocked).toBe(
      '10 consecutive worker failures',
    );
    const retry = await dryRun(f, '--retry-blocked');
    expect(statusOf(retry.doc)['api/add-flag']).toBe('admitted');
  });

  it('writes nothing but its plan cache: the stored state is read through a store that creates nothing', async () => {
    const f = fixture();
    execFileSync('git', ['init', '-q', f.ws]); // the isolation report and git checks run too
    const state = join(f.ws, 'agent-task/.switchyard');
    const blocked = newTaskState('db/schema');
    blocked.blocked = {
      reason: 'stuck',
      stage: 'worker',
      evidence: [],
      at: new Date().toISOString(),
    };
    await openStateStore(state).write(blocked);
    // Every entry under the workspace but the plan cache (parsed plans, rebuilt when missing).
    const listing = () =>
      readdirSync(f.ws, { recursive: true, encoding: 'utf8' })
        .map((entry) => relative(f.ws, join(f.ws, entry)))
        .filter(
          (entry) => !entry.startsWith('.git') && !entry.startsWith('agent-task/.switchyard/cache'),
        )
        .sort();
    const before = listing();
    expect(before).not.toContain('agent-task/.switchyard/claims'); // no claim store yet
    const { doc } = await dryRun(f);
    expect(statusOf(doc)['db/schema']).toBe('blocked');
    expect(doc.claims).toEqual([]);
    const human = await runCli(['run', '--dry-run', '--execution-catalog', f.catalog.path], {
      cwd: f.ws,
      env: SYSTEM_PATH,
    });
    expect(human.stdout).toContain('nothing was launched');
    expect(listing()).toEqual(before);
  });

  it('exits 2 with every problem: cycle, unknown dependency, bad plan, bad pin, unknown group', async () => {
    const f = fixture();
    f.write('agent-task/loop/a/PLAN.md', plan('local-G01', ['a.ts'], { deps: ['b'] }));
    f.write('agent-task/loop/b/PLAN.md', plan('local-G01', ['b.ts'], { deps: ['a'] }));
    f.write('agent-task/loop/c/PLAN.md', plan('local-G01', ['c.ts'], { deps: ['other/ghost'] }));
    f.write('agent-task/loop/d/PLAN.md', plan('local-G01', ['src/*.ts']));
    f.write('agent-task/loop/e/PLAN.md', plan('local-G01', ['e.ts'], { target: 'no-such-target' }));
    f.write('agent-task/loop/f/PLAN.md', plan('local-G01', ['f.ts'], { deps: ['a'] }));
    const { exitCode, doc } = await dryRun(f, '--task-group', 'nope');
    expect(exitCode).toBe(2);
    const messages = doc.problems.map((p: { message: string }) => p.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'task group "nope" does not exist under agent-task/',
        'dependency cycle: loop/a -> loop/b -> loop/a',
        'task loop/c depends on unknown task other/ghost',
        '"src/*.ts" is a glob pattern',
        'target "no-such-target" is not a target of the catalog',
      ]),
    );
    expect(doc.summary.errors).toBe(5);
    const all = await dryRun(f);
    expect(statusOf(all.doc)).toMatchObject({
      'loop/a': 'invalid',
      'loop/f': 'dependency-blocked',
      'docs/guide': 'admitted', // independent work is not held up
    });
    const cycle = all.doc.problems.find((p: { message: string }) =>
      p.message.startsWith('dependency cycle'),
    );
    expect(cycle).toMatchObject({
      code: 'SY_GRAPH_INVALID',
      file: 'agent-task/loop/a/PLAN.md',
      line: 3,
    });
  });

  it('reports an invalid catalog and still lists the tasks', async () => {
    const f = fixture();
    f.write('../bad-catalog.json', '{"schema_version": 1, "targets": {}');
    const { exitCode, doc } = await dryRun(
      f,
      '--execution-catalog',
      join(f.root, 'bad-catalog.json'),
    );
    expect(exitCode).toBe(2);
    expect(doc.catalog).toEqual({ valid: false, source: null, revision: null });
    expect(doc.problems[0]).toMatchObject({ code: 'SY_CATALOG_PARSE' });
    expect(doc.tasks).toHaveLength(5);
  });

  it('refuses bad flags with exit 2 and launches nothing', async () => {
    const f = fixture();
    for (const args of [['--max-parallel', '-1'], ['--max-parallel', 'two'], ['--bogus']]) {
      const r = await runCli(['run', '--dry-run', '--execution-catalog', f.catalog.path, ...args], {
        cwd: f.ws,
        env: SYSTEM_PATH,
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/must be a whole number|unknown option/);
    }
    expect(existsSync(f.catalog.marker)).toBe(false);
  });
});
