import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../src/index.js';
import { freshScope, testDatabase } from './database.js';

// A backlog named one way by an earlier switchyard is moved, whole, to the name this one
// gives it: its tasks are delivered from the new scope's queue, nothing is left under the old.
let url = '';
const stores: PostgresStore[] = [];
beforeAll(async () => {
  url = await testDatabase();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close().catch(() => undefined)));
});
const open = async (scope: string) => {
  const store = await openPostgresStore({ url, scope });
  stores.push(store);
  return store;
};
const task = (id: string, dependsOn: string[] = []) => ({
  task: id,
  planHash: `hash-${id}`,
  dependsOn,
  payload: { id },
});

describe('adopting an earlier scope', () => {
  it('moves every record and delivers the ready tasks on the new queue; the old scope is empty', async () => {
    const from = freshScope('old');
    const to = freshScope('new');
    const old = await open(from);
    const oldBacklog = await old.backlog();
    await oldBacklog.publish([task('g/a'), task('g/b', ['g/a']), task('g/c')], 'machine-a');
    await old.events.append({ type: 'run.started', run_id: 'r1' } as never);
    // g/c was taken and archived under the old name; a and b wait for a machine.
    const taken = await oldBacklog.take('machine-a', 60_000);
    expect(taken?.entry.task).toBe('g/a');
    await oldBacklog.requeue('g/a', taken!.lease, 0);
    const c = await oldBacklog.take('machine-a', 60_000);
    const cTask = c?.entry.task;
    expect(cTask).toBeDefined();
    await oldBacklog.finish(cTask!, 'archived', c!.lease, { 'done.md': 'ok' });

    const fresh = await open(to);
    const backlog = await fresh.backlog();
    expect((await backlog.scopes()).map((s) => s.scope)).toContain(from);
    const moved = await backlog.adopt(from);
    expect(moved?.rows).toBeGreaterThanOrEqual(5);
    const other = cTask === 'g/a' ? 'g/c' : 'g/a';
    expect(moved?.delivered).toEqual([other]);

    const listed = await backlog.list();
    expect(listed.map((e) => [e.task, e.status])).toEqual([
      ['g/a', cTask === 'g/a' ? 'archived' : 'ready'],
      ['g/b', cTask === 'g/a' ? 'ready' : 'waiting'],
      ['g/c', cTask === 'g/c' ? 'archived' : 'ready'],
    ]);
    expect(listed.find((e) => e.task === cTask)?.archive).toEqual({ 'done.md': 'ok' });
    expect((await fresh.events.read()).events.map((e) => e.event.type)).toContain('run.started');
    expect(await oldBacklog.list()).toEqual([]);
    expect((await backlog.scopes()).map((s) => s.scope)).not.toContain(from);

    // The moved ready task comes from the new scope's queue, and only once.
    const next = await backlog.take('machine-b', 60_000);
    expect(next?.entry.task).toBe(other);
    expect(await oldBacklog.take('machine-a', 60_000)).toBeUndefined();
    // A second adoption finds this scope in use and moves nothing.
    expect(await backlog.adopt(from)).toBeUndefined();
  });

  it('is refused while a machine holds a live lease on the earlier scope', async () => {
    const from = freshScope('old');
    const old = await open(from);
    const oldBacklog = await old.backlog();
    await oldBacklog.publish([task('g/a')], 'machine-a');
    expect((await oldBacklog.take('machine-a', 600_000))?.entry.task).toBe('g/a');

    const backlog = await (await open(freshScope('new'))).backlog();
    await expect(backlog.adopt(from)).rejects.toMatchObject({
      code: 'SY_STORE_SCOPE',
      message: expect.stringContaining('g/a (machine-a)'),
    });
    expect((await oldBacklog.list()).map((e) => e.status)).toEqual(['taken']);
    expect(await backlog.list()).toEqual([]);
  });
});
