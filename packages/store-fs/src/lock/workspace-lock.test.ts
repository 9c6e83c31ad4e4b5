import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { readStartToken } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { acquireWorkspaceLock, LOCK_FILE_NAME, readLockHolder } from './workspace-lock.js';

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sy-lock-'));
  mkdirSync(join(dir, 'agent-task'));
  return dir;
}

describe('workspace lock', () => {
  it('refuses a second holder at once, naming the holder, then frees on release', () => {
    const ws = workspace();
    const lock = acquireWorkspaceLock({ workspace: ws });
    expect(lock.holder.pid).toBe(process.pid);
    let error: unknown;
    try {
      acquireWorkspaceLock({ workspace: ws });
    } catch (e) {
      error = e;
    }
    expect(SwitchyardError.is(error)).toBe(true);
    expect((error as SwitchyardError).code).toBe('SY_LOCK_HELD');
    expect((error as SwitchyardError).message).toContain(`pid ${process.pid} on ${hostname()}`);
    lock.release();
    expect(existsSync(lock.file)).toBe(false);
    acquireWorkspaceLock({ workspace: ws }).release();
  });

  it('locks the physical workspace: a symlinked path shares the lock', () => {
    const ws = workspace();
    const link = join(mkdtempSync(join(tmpdir(), 'sy-lock-link-')), 'ws');
    symlinkSync(ws, link);
    const lock = acquireWorkspaceLock({ workspace: ws });
    expect(() => acquireWorkspaceLock({ workspace: link })).toThrow(/workspace lock/);
    lock.release();
  });

  it('holds while another live process owns it and takes over once that process is gone', async () => {
    const ws = workspace();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const held = acquireWorkspaceLock({ workspace: ws, pid: child.pid! });
    expect(held.holder.pid).toBe(child.pid);
    expect(() => acquireWorkspaceLock({ workspace: ws })).toThrow(/pid \d+/);
    child.kill('SIGKILL');
    await once(child, 'exit');
    const mine = acquireWorkspaceLock({ workspace: ws });
    expect(readLockHolder(join(ws, 'agent-task', '.switchyard'))?.pid).toBe(process.pid);
    // The old holder's release must not remove the new holder's lock.
    held.release();
    expect(existsSync(mine.file)).toBe(true);
    mine.release();
  });

  it('treats a reused PID (start token differs) and a torn lock file as stale', () => {
    const ws = workspace();
    const stateDir = join(ws, 'agent-task', '.switchyard');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(
      join(stateDir, LOCK_FILE_NAME),
      JSON.stringify({
        pid: process.pid,
        startToken: 'other-boot:1',
        host: hostname(),
        since: '2020-01-01T00:00:00Z',
        workspace: ws,
      }),
    );
    const mine = { pid: process.pid, startToken: readStartToken(process.pid), host: hostname() };
    expect(mine.startToken).toBeDefined();
    expect(mine.startToken).not.toBe('other-boot:1');
    const overReused = acquireWorkspaceLock({ workspace: ws });
    // the stale lock was replaced by ours: our start token, a fresh time
    expect(readLockHolder(stateDir)).toEqual(overReused.holder);
    expect(overReused.holder).toMatchObject(mine);
    expect(overReused.holder.since).not.toBe('2020-01-01T00:00:00Z');
    overReused.release();
    expect(readLockHolder(stateDir)).toBeUndefined();
    writeFileSync(join(stateDir, LOCK_FILE_NAME), '{"pid": 12');
    const overTorn = acquireWorkspaceLock({ workspace: ws });
    expect(readLockHolder(stateDir)).toEqual(overTorn.holder);
    expect(overTorn.holder).toMatchObject(mine);
    overTorn.release();
    expect(existsSync(join(stateDir, LOCK_FILE_NAME))).toBe(false);
  });

  it('fails closed for a lock taken on another host', () => {
    const ws = workspace();
    const stateDir = join(ws, 'agent-task', '.switchyard');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(
      join(stateDir, LOCK_FILE_NAME),
      JSON.stringify({ pid: 1, startToken: 'x', host: 'elsewhere', since: 'then', workspace: ws }),
    );
    expect(() => acquireWorkspaceLock({ workspace: ws })).toThrow(/on elsewhere/);
  });
});
