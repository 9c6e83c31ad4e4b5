import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFile } from './atomic-file.js';
import { ensureOwnedDir, openOwnedFile, writeOwnedFile } from './owned-files.js';

let root: string;
let ws: string;
let victim: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sy-owned-'));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'agent-task', 'g', 't'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  victim = join(root, 'victim');
  writeFileSync(victim, 'original\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

// A link planted while the dispatcher runs (after its start-up check) is still not followed.
describe('files planted during a run', () => {
  it('a FIFO at a file the dispatcher appends to is refused at once', () => {
    const fifo = join(ws, 'agent-task', 'g', 'WORK_LOG.md');
    execFileSync('mkfifo', [fifo]);
    expect(() => openOwnedFile(fifo, 'append')).toThrow(
      expect.objectContaining({ code: 'SY_UNSAFE_PATH' }),
    );
  });

  it('a symlinked complete.log is not written', () => {
    const file = join(ws, 'agent-task', 'g', 't', 'complete.log');
    symlinkSync(victim, file);
    expect(() => writeOwnedFile(file, 'done', 'create')).toThrow();
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });

  it('a folder below the workspace swapped for a symlink is refused before mkdir', () => {
    symlinkSync(join(root, 'outside'), join(ws, 'agent-task', 'archive'));
    expect(() => ensureOwnedDir(ws, join(ws, 'agent-task', 'archive', 'g'))).toThrow(
      expect.objectContaining({ code: 'SY_UNSAFE_PATH' }),
    );
    expect(existsSync(join(root, 'outside', 'g'))).toBe(false);
  });

  it('state replacement never writes through a symlink planted at a temp name', async () => {
    const dir = join(ws, 'agent-task', '.switchyard');
    mkdirSync(dir);
    const file = join(dir, 'state.json');
    // Plant links at the next temp names this process could use.
    for (let n = 1; n <= 50; n++) symlinkSync(victim, `${file}.${process.pid}.${n}.tmp`);
    await replaceFile(file, '{}', { durable: false }).catch(() => undefined);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });

  it('files and folders the dispatcher creates are owner-only', () => {
    const dir = join(ws, 'agent-task', '.switchyard', 'attempts', 'a1');
    ensureOwnedDir(ws, dir);
    writeOwnedFile(join(dir, 'prompt.md'), 'x', 'replace');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'prompt.md')).mode & 0o777).toBe(0o600);
  });
});
