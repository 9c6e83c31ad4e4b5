import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { newTaskState, SwitchyardError } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { openFsReader } from './fs-reader.js';
import { openFsStore } from './index.js';
import { type MethodKinds, readOnly } from './read-only-port.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A workspace (with `agent-task/`) and a folder for schedules, in one temp folder. */
function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'sy-fs-reader-'));
  roots.push(root);
  const ws = join(root, 'ws');
  mkdirSync(join(ws, 'agent-task'), { recursive: true });
  return { root, ws, scheduleHome: join(root, 'home') };
}

/** Every file and folder under `dir`, relative to it, sorted. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => relative(dir, join(dir, entry)))
    .sort();
}

const AT = '2026-12-01T02:00:00.000Z';
const SESSION = 's-20261201T020000Z-1a2b';
const record = (task: string) => ({
  schema: 1 as const,
  taskId: task,
  branch: `switchyard/${task}`,
  path: `/w/.worktrees/${task}`,
  workdir: `/w/.worktrees/${task}`,
  sourceBranch: 'main',
  baseCommit: 'a'.repeat(40),
  state: 'active' as const,
  createdAt: AT,
});

describe('the file store opened for reading', () => {
  it('reads through every port of a fresh workspace and creates nothing, not even the state folder', async () => {
    const { root, ws, scheduleHome } = workspace();
    const before = listing(root);
    const store = openFsStore({ workspace: ws, scheduleHome });
    await store.tasks.list();
    await store.tasks.get('g/t');
    await store.leases.list();
    await store.claims.list();
    await store.claims.holderOf('src/a.ts');
    await store.claims.snapshot();
    await store.events.read();
    await store.workLog.groups();
    await store.attempts.list();
    await store.sessions.ids();
    await store.escalations.tasks();
    await store.isolation.recordTasks();
    await store.isolation.journalTasks();
    await store.schedules.list();
    await store.targets.list();
    await store.close();
    const reader = openFsReader({ workspace: ws });
    await reader.tasks.list();
    await reader.claims.list();
    await reader.leases.list();
    await reader.sessions.ids();
    await reader.isolation.recordTasks();
    expect(listing(root)).toEqual(before);
  });

  it('reads what the store wrote, in the same shapes, and refuses every write', async () => {
    const { root, ws, scheduleHome } = workspace();
    const store = openFsStore({ workspace: ws, scheduleHome });
    const blocked = newTaskState('g/t');
    blocked.blocked = { reason: 'ten failures', stage: 'worker', evidence: [], at: AT };
    await store.tasks.put(blocked, { expected: 0 });
    await store.claims.tryClaim('g/t', ['src/a.ts']);
    const lease = await store.leases.acquire('g/t', 'holder-1', 60_000);
    await store.sessions.create(
      {
        schema_version: 1,
        id: SESSION,
        workspace: ws,
        createdAt: AT,
        options: { taskGroup: 'g' },
        tasks: ['g/t'],
      },
      {
        schema_version: 1,
        id: SESSION,
        state: 'running',
        pid: 1,
        startedAt: AT,
        updatedAt: AT,
        runs: [],
      },
    );
    await store.isolation.putRecord(record('g/t'));
    await store.close();
    const before = listing(root);

    const reader = openFsReader({ workspace: ws });
    expect(reader.kind).toBe('fs');
    expect(reader.location).toBe(store.location);
    expect(await reader.tasks.get('g/t')).toEqual(await store.tasks.get('g/t'));
    expect((await reader.tasks.list()).map((s) => s.value.blocked?.reason)).toEqual([
      'ten failures',
    ]);
    expect(await reader.claims.list()).toEqual(await store.claims.list());
    expect(await reader.claims.holderOf('src/a.ts')).toBe('g/t');
    expect(await reader.leases.get('g/t')).toEqual(lease.ok ? lease.lease : undefined);
    expect(await reader.sessions.ids()).toEqual([SESSION]);
    expect((await reader.sessions.getStatus(SESSION))?.state).toBe('running');
    expect(await reader.isolation.recordTasks()).toEqual(['g/t']);
    expect(await reader.isolation.getRecord('g/t')).toEqual(record('g/t'));

    const refused = [
      reader.tasks.put(newTaskState('g/u'), { expected: 0 }),
      reader.tasks.delete('g/t', { expected: 1 }),
      reader.claims.tryClaim('g/u', ['src/b.ts']),
      reader.claims.release('g/t'),
      reader.leases.acquire('g/u', 'holder-2', 60_000),
      reader.sessions.putStatus({
        schema_version: 1,
        id: SESSION,
        state: 'finished',
        pid: 1,
        startedAt: AT,
        updatedAt: AT,
        runs: [],
      }),
      reader.isolation.putRecord(record('g/u')),
      reader.isolation.removeRecord('g/t'),
    ];
    for (const write of refused) {
      const error = await write.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(SwitchyardError.is(error) && error.code).toBe('SY_INTERNAL');
    }
    expect(listing(root)).toEqual(before);
  });

  it('refuses every member of its ports that is not a read, those beyond the port interfaces too', async () => {
    const { root, ws } = workspace();
    const reader = openFsReader({ workspace: ws });
    const before = listing(root);
    const refused: string[] = [];
    const ports = {
      tasks: reader.tasks,
      leases: reader.leases,
      claims: reader.claims,
      sessions: reader.sessions,
      isolation: reader.isolation,
    };
    for (const [name, port] of Object.entries(ports)) {
      for (const [key, member] of Object.entries(port)) {
        if (typeof member !== 'function') continue;
        // Each member is called bare: a refusal ignores its arguments, a read may throw on none.
        const error = await Promise.resolve()
          .then(() => (member as () => unknown)())
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        if (SwitchyardError.is(error) && error.code === 'SY_INTERNAL')
          refused.push(`${name}.${key}`);
      }
    }
    expect(refused.sort()).toEqual([
      'claims.release',
      'claims.tryClaim',
      'isolation.putJournal',
      'isolation.putRecord',
      'isolation.removeJournal',
      'isolation.removeRecord',
      'leases.acquire',
      'leases.check',
      'leases.flush',
      'leases.release',
      'leases.renew',
      'sessions.appendEvent',
      'sessions.close',
      'sessions.create',
      'sessions.putMonitor',
      'sessions.putStatus',
      'tasks.delete',
      'tasks.put',
    ]);
    expect(listing(root)).toEqual(before);
  });

  it('a port method left unclassified does not compile, and is refused at run time', async () => {
    const port = { count: async () => 3, wipe: async () => 'wiped' };
    // @ts-expect-error `wipe` is neither a read nor a write yet
    const kinds: MethodKinds<typeof port> = { count: 'read' };
    const reader = readOnly(port, 'demo', kinds);
    expect(await reader.count()).toBe(3);
    const error = await reader.wipe().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(SwitchyardError.is(error) && error.code).toBe('SY_INTERNAL');
    expect(SwitchyardError.is(error) && error.message).toContain('demo.wipe');
  });
});
