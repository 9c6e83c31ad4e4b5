import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireWorkspaceLock, LOCK_FILE_NAME } from './workspace-lock.js';

const workspaceWithLock = (holder: Record<string, unknown>) => {
  const ws = mkdtempSync(join(tmpdir(), 'sy-lockh-'));
  const stateDir = join(ws, 'agent-task', '.switchyard');
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, LOCK_FILE_NAME), JSON.stringify({ ...holder, workspace: ws }));
  return { ws, stateDir };
};

describe('workspace lock: leftovers and foreign hosts', () => {
  it('a stale lock taken over leaves no dispatcher.lock.stale behind', () => {
    const { ws, stateDir } = workspaceWithLock({
      pid: process.pid,
      startToken: 'another-boot:1',
      host: hostname(),
      since: '2020-01-01T00:00:00Z',
    });
    acquireWorkspaceLock({ workspace: ws }).release();
    expect(readdirSync(stateDir).filter((n) => n.startsWith(LOCK_FILE_NAME))).toEqual([]);
    rmSync(ws, { recursive: true, force: true });
  });

  it('a lock from another host names the host and says how to break it; breaking it works', () => {
    const { ws, stateDir } = workspaceWithLock({
      pid: 4242,
      startToken: 'x',
      host: 'build-07',
      since: '2026-01-01T00:00:00Z',
    });
    const file = join(stateDir, LOCK_FILE_NAME);
    let error: { code?: string; message?: string; hint?: string } = {};
    try {
      acquireWorkspaceLock({ workspace: ws });
    } catch (e) {
      error = e as typeof error;
    }
    expect(error.code).toBe('SY_LOCK_HELD');
    expect(error.message).toMatch(/pid 4242 on build-07/);
    expect(error.message).toMatch(/another host \(build-07\).*never taken over automatically/);
    expect(error.hint).toBe(
      `Make sure no switchyard runs on build-07 for this workspace, then break the lock: rm ${file}`,
    );
    rmSync(file); // the documented way
    acquireWorkspaceLock({ workspace: ws }).release();
    rmSync(ws, { recursive: true, force: true });
  });
});
