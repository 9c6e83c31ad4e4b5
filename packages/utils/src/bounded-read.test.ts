import { execFileSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PLAN_BYTES, maxPlanBytes, readBoundedFile } from './bounded-read.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sy-bounded-'));
  mkdirSync(join(root, 'task'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const MAX = { maxBytes: 1024 };

describe('readBoundedFile', () => {
  it('reads a regular file under the cap', () => {
    writeFileSync(join(root, 'task', 'PLAN.md'), 'hello');
    expect(readBoundedFile(join(root, 'task', 'PLAN.md'), MAX)).toEqual({
      ok: true,
      text: 'hello',
    });
  });

  it('refuses a FIFO without waiting for a writer', () => {
    const fifo = join(root, 'task', 'PLAN.md');
    execFileSync('mkfifo', [fifo]);
    const read = readBoundedFile(fifo, MAX);
    expect(read).toMatchObject({ ok: false, reason: 'not-regular' });
    expect(!read.ok && read.message).toMatch(/FIFO/);
  });

  it('refuses a symlink to /dev/zero and /dev/urandom (outside the folder)', () => {
    for (const device of ['/dev/zero', '/dev/urandom']) {
      const link = join(root, 'task', 'PLAN.md');
      rmSync(link, { force: true });
      symlinkSync(device, link);
      const read = readBoundedFile(link, MAX);
      expect(read).toMatchObject({ ok: false, reason: 'not-regular' });
      expect(!read.ok && read.message).toMatch(/outside/);
    }
  });

  it('refuses a device even when the folder given as `within` holds it', () => {
    const read = readBoundedFile('/dev/zero', { maxBytes: 1024, within: '/dev' });
    expect(read).toMatchObject({ ok: false, reason: 'not-regular' });
    expect(!read.ok && read.message).toMatch(/character device/);
  });

  it('refuses a symlink to a file outside the folder, follows one inside it', () => {
    writeFileSync(join(root, 'secret.md'), 'outside');
    symlinkSync(join(root, 'secret.md'), join(root, 'task', 'PLAN.md'));
    expect(readBoundedFile(join(root, 'task', 'PLAN.md'), MAX)).toMatchObject({
      ok: false,
      reason: 'not-regular',
    });
    writeFileSync(join(root, 'task', 'draft.md'), 'inside');
    symlinkSync('draft.md', join(root, 'task', 'PLAN-2.md'));
    expect(readBoundedFile(join(root, 'task', 'PLAN-2.md'), MAX)).toEqual({
      ok: true,
      text: 'inside',
    });
  });

  it('refuses a file over the cap from its size, before reading (a sparse 4 GiB file)', () => {
    const big = join(root, 'task', 'PLAN.md');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 4 * 1024 ** 3);
    closeSync(fd);
    const read = readBoundedFile(big, { maxBytes: DEFAULT_MAX_PLAN_BYTES });
    expect(read).toMatchObject({ ok: false, reason: 'too-large' });
    expect(!read.ok && read.message).toMatch(/size cap of 1048576 bytes/);
  });

  it('refuses a folder and reports a missing file as missing', () => {
    expect(readBoundedFile(join(root, 'task'), MAX)).toMatchObject({ reason: 'not-regular' });
    expect(readBoundedFile(join(root, 'task', 'nope.md'), MAX)).toMatchObject({
      reason: 'missing',
    });
  });

  it('takes the cap from SWITCHYARD_MAX_PLAN_BYTES, ignoring junk', () => {
    expect(maxPlanBytes({})).toBe(1024 * 1024);
    expect(maxPlanBytes({ SWITCHYARD_MAX_PLAN_BYTES: '2048' })).toBe(2048);
    expect(maxPlanBytes({ SWITCHYARD_MAX_PLAN_BYTES: '-1' })).toBe(1024 * 1024);
    expect(maxPlanBytes({ SWITCHYARD_MAX_PLAN_BYTES: 'lots' })).toBe(1024 * 1024);
  });
});
