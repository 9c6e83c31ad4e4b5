import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionPlan } from '@switchyard/core';
import { openFsStore } from '@switchyard/store-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { listSessions, readSession, runningStatus } from './session-view.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const plan = (id: string): SessionPlan => ({
  schema_version: 1,
  id,
  workspace: '/w',
  createdAt: '2026-12-01T10:00:00.000Z',
  options: {},
  tasks: ['g/a'],
});

describe('sessions read through the store', () => {
  it('judges a running session by its process; unknown and malformed ids are usage errors', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-session-view-'));
    dirs.push(ws);
    mkdirSync(join(ws, 'agent-task'));
    const store = openFsStore({ workspace: ws });
    try {
      const live = 's-20261201T100000Z-0a0b';
      const dead = 's-20261201T090000Z-0c0d';
      const done = 's-20261201T110000Z-0e0f';
      await store.sessions.create(plan(live), runningStatus(live, undefined));
      // a process that ran it and is gone: pid 2^22 + 1 is above Linux's pid limit
      await store.sessions.create(plan(dead), { ...runningStatus(dead, undefined), pid: 4194305 });
      await store.sessions.create(plan(done), {
        ...runningStatus(done, undefined),
        state: 'finished',
        exitCode: 0,
      });
      expect((await readSession(store.sessions, live)).state).toBe('running');
      expect((await readSession(store.sessions, dead)).state).toBe('crashed');
      expect((await listSessions(store.sessions)).map((v) => [v.plan.id, v.state])).toEqual([
        [dead, 'crashed'],
        [live, 'running'],
        [done, 'finished'],
      ]);
      // the same files as before: the session's folder with its plan and status
      const view = await readSession(store.sessions, live);
      expect(view.dir).toBe(join(store.layout.stateDir, 'sessions', live));
      expect(JSON.parse(readFileSync(join(view.dir, 'status.json'), 'utf8'))).toMatchObject({
        id: live,
        state: 'running',
        pid: process.pid,
      });
      await expect(readSession(store.sessions, 's-20261201T120000Z-ffff')).rejects.toMatchObject({
        code: 'SY_USAGE',
        message: 'No session "s-20261201T120000Z-ffff" in this workspace.',
        hint: `Recent sessions: ${dead}, ${live}, ${done}.`,
      });
      await expect(readSession(store.sessions, 'nope')).rejects.toMatchObject({
        code: 'SY_USAGE',
        message: '"nope" is not a session id.',
      });
      // a resumed session keeps when it started and its runs
      const resumed = runningStatus(dead, { ...runningStatus(dead, undefined), runs: ['r1'] });
      expect(resumed).toMatchObject({ state: 'running', pid: process.pid, runs: ['r1'] });
    } finally {
      await store.close();
    }
  });
});
