import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError, type WorkLogRow } from '@switchyard/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { appendWorkLog, archiveWorkLog, workLogPath } from './work-log.js';
import { formatWorkLogRow } from './work-log-format.js';

function ws(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sy-wl-'));
  mkdirSync(join(dir, 'agent-task', 'g1'), { recursive: true });
  return dir;
}

const row = (over: Partial<WorkLogRow> = {}): WorkLogRow => ({
  kind: 'START',
  time: new Date('2026-11-30T12:00:01.250Z'),
  task: 'g1/t1',
  artifact: 'PLAN.md',
  planLoop: 1,
  role: 'worker',
  attempt: 'a1',
  agentModel: 'agent-x/model-y',
  result: 'running',
  locator: '.switchyard/attempts/a1/locator.json',
  ...over,
});

describe('work log', () => {
  it('formats a row with UTC seconds and escapes cell separators', () => {
    expect(formatWorkLogRow(row({ result: 'a|b\nc' }))).toBe(
      '| 2026-11-30T12:00:01Z | START | g1/t1/PLAN.md | 1 | worker | a1 | agent-x/model-y | a\\|b c | .switchyard/attempts/a1/locator.json |\n',
    );
  });

  it('creates the log with a header once and appends rows in order', () => {
    const dir = ws();
    appendWorkLog(dir, 'g1', [row()]);
    appendWorkLog(dir, 'g1', [row({ kind: 'FINISH', result: 'success' })]);
    const text = readFileSync(workLogPath(dir, 'g1'), 'utf8');
    expect(text.match(/^# Work log: g1$/gm)).toHaveLength(1);
    const rows = text.split('\n').filter((l) => l.startsWith('| 2026'));
    expect(rows.map((l) => l.split(' | ')[1])).toEqual(['START', 'FINISH']);
  });

  it('archives to the next free work_log_N.log and returns undefined when there is no log', () => {
    const dir = ws();
    expect(archiveWorkLog(dir, 'g1')).toBeUndefined();
    const archive = join(dir, 'agent-task', 'archive', 'g1');
    mkdirSync(archive, { recursive: true });
    writeFileSync(join(archive, 'work_log_1.log'), 'older run\n');
    appendWorkLog(dir, 'g1', [row()]);
    const path = archiveWorkLog(dir, 'g1');
    expect(path).toBe(join(archive, 'work_log_2.log'));
    expect(readFileSync(path!, 'utf8')).toContain('| START |');
    expect(existsSync(workLogPath(dir, 'g1'))).toBe(false);
    expect(readFileSync(join(archive, 'work_log_1.log'), 'utf8')).toBe('older run\n');
    appendWorkLog(dir, 'g1', [row()]);
    expect(archiveWorkLog(dir, 'g1')).toBe(join(archive, 'work_log_3.log'));
  });

  it('reports write and archive failures as SY_WORK_LOG', () => {
    const dir = ws();
    // A directory where the log file should be: the write fails even for root.
    mkdirSync(workLogPath(dir, 'g1'));
    try {
      appendWorkLog(dir, 'g1', [row()]);
      expect.unreachable();
    } catch (error) {
      expect(SwitchyardError.is(error) && error.code).toBe('SY_WORK_LOG');
    }
    const other = ws();
    appendWorkLog(other, 'g1', [row()]);
    writeFileSync(join(other, 'agent-task', 'archive'), 'a file, not a directory');
    expect(() => archiveWorkLog(other, 'g1')).toThrow(/Cannot archive the work log/);
  });

  it('reports a missing group directory as SY_WORK_LOG', () => {
    const dir = ws();
    expect(() => appendWorkLog(dir, 'nope', [row()])).toThrow(/Cannot write the work log/);
  });
});

// A link planted while the dispatcher runs (after its start-up check) is still not followed.
describe('a work log planted as a symlink', () => {
  let ws: string;
  let victim: string;
  beforeEach(() => {
    const root = mkdtempSync(join(tmpdir(), 'sy-owned-'));
    ws = join(root, 'ws');
    mkdirSync(join(ws, 'agent-task', 'g', 't'), { recursive: true });
    victim = join(root, 'victim');
    writeFileSync(victim, 'original\n');
  });

  it('a symlinked WORK_LOG.md: SY_UNSAFE_PATH, the victim keeps its content', () => {
    symlinkSync(victim, join(ws, 'agent-task', 'g', 'WORK_LOG.md'));
    expect(() => appendWorkLog(ws, 'g', [row()])).toThrow(
      expect.objectContaining({ code: 'SY_UNSAFE_PATH' }),
    );
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });

  it('a symlinked WORK_LOG.md is not archived (moved) either', () => {
    symlinkSync(victim, join(ws, 'agent-task', 'g', 'WORK_LOG.md'));
    expect(() => archiveWorkLog(ws, 'g')).toThrow(
      expect.objectContaining({ code: 'SY_UNSAFE_PATH' }),
    );
  });
});
