import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkLogRow } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { openFsStore } from './fs-store.js';

const row = (kind: 'START' | 'FINISH', attempt: string): WorkLogRow => ({
  kind,
  time: new Date('2026-01-01T00:00:00Z'),
  task: 'g/t',
  artifact: 'PLAN.md',
  planLoop: 1,
  maxPlanLoops: 3,
  role: 'worker',
  attempt,
  agentModel: 'a|b/m',
  result: 'success',
  locator: 'l',
});

describe('fs work log', () => {
  it('writes the Markdown table people read and parses the rows back from it', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-fs-wl-'));
    mkdirSync(join(ws, 'agent-task', 'g'), { recursive: true });
    const store = openFsStore({ workspace: ws, exclusive: true });
    await expect(store.workLog.append('none', [row('START', 'x')])).rejects.toMatchObject({
      code: 'SY_WORK_LOG',
    });
    await store.workLog.append('g', [row('START', 'a1'), row('FINISH', 'a1')]);
    await store.workLog.flush();
    const text = readFileSync(join(ws, 'agent-task/g/WORK_LOG.md'), 'utf8');
    expect(text).toContain('# Work log: g');
    expect(text).toContain(
      '| 2026-01-01T00:00:00Z | START | g/t/PLAN.md | 1 of 3 | worker | a1 | a\\|b/m | success | l |',
    );
    expect(await store.workLog.read('g')).toEqual([row('START', 'a1'), row('FINISH', 'a1')]);
    expect(await store.workLog.archive('g')).toBe(join(ws, 'agent-task/archive/g/work_log_1.log'));
    await store.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('never writes rows into a log that was replaced after it was opened', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-fs-wl-'));
    mkdirSync(join(ws, 'agent-task', 'g'), { recursive: true });
    const store = openFsStore({ workspace: ws, exclusive: true });
    const log = join(ws, 'agent-task/g/WORK_LOG.md');
    await store.workLog.append('g', [row('START', 'a1')]);
    // Deleted while open: the FINISH row goes to a new file at the path, not the lost inode.
    rmSync(log);
    await store.workLog.append('g', [row('FINISH', 'a1')]);
    expect(readFileSync(log, 'utf8')).toContain('| FINISH |');
    // Replaced by a link: refused, never followed.
    const victim = join(ws, 'victim.md');
    writeFileSync(victim, 'original\n');
    rmSync(log);
    symlinkSync(victim, log);
    await expect(store.workLog.append('g', [row('FINISH', 'a2')])).rejects.toThrow(/symlink/);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
    await store.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('finds open START rows in the text people may have touched, and archived logs by mtime', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-fs-wl-'));
    mkdirSync(join(ws, 'agent-task', 'g'), { recursive: true });
    mkdirSync(join(ws, 'agent-task', 'archive', 'g'), { recursive: true });
    const store = openFsStore({ workspace: ws, exclusive: true });
    // A row that is not one (a note, a broken line) is skipped, not taken for a START.
    await store.workLog.append('g', [row('START', 'a1'), row('START', 'a2')]);
    writeFileSync(join(ws, 'agent-task/g/WORK_LOG.md'), 'a note | not | a row\n', { flag: 'a' });
    await store.workLog.append('g', [{ ...row('FINISH', 'a1'), maxPlanLoops: 4 }]);
    const open = await store.workLog.openStarts('g');
    expect(open).toEqual([
      { row: { ...row('START', 'a2') }, log: join(ws, 'agent-task/g/WORK_LOG.md') },
    ]);
    expect(await store.workLog.groups()).toEqual(['g']);
    // An archived log last written before the instant asked about is left out.
    const archived = await store.workLog.archive('g');
    expect(await store.workLog.groups()).toEqual([]);
    writeFileSync(join(ws, 'agent-task/archive/g/notes.txt'), '| x |\n');
    utimesSync(archived!, new Date(10_000), new Date(10_000));
    expect(await store.workLog.openStarts('g', { archivedSince: 10_001 })).toEqual([]);
    expect(await store.workLog.openStarts('g', { archivedSince: 10_000 })).toEqual([
      { row: row('START', 'a2'), log: archived },
    ]);
    await store.close();
    rmSync(ws, { recursive: true, force: true });
  });
});
