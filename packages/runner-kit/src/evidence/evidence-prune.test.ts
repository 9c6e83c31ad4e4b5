import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttemptRecord, newTaskState, type TaskState } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { pruneAttemptEvidence } from './evidence-prune.js';

const DAY = 86_400_000;
const now = new Date('2026-12-01T12:00:00Z');

/** A real state folder with task states and attempt folders of `bytes` each. */
function stateFolder() {
  const stateDir = mkdtempSync(join(tmpdir(), 'sy-prune-'));
  const states: TaskState[] = [];
  const attempt = (id: string, daysAgo: number, result: string, bytes = 1000): AttemptRecord => {
    const dir = join(stateDir, 'attempts', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'locator.json'), '{}');
    writeFileSync(join(dir, 'stdout.raw'), 'x'.repeat(bytes));
    const at = new Date(now.getTime() - daysAgo * DAY).toISOString();
    return {
      id,
      role: 'worker',
      planLoop: 1,
      target: 't',
      attemptDir: dir,
      status: 'finished',
      startedAt: at,
      endedAt: at,
      result: result as AttemptRecord['result'],
    };
  };
  const task = async (id: string, patch: Partial<TaskState>, attempts: AttemptRecord[]) => {
    states.push({ ...newTaskState(id, now), ...patch, attempts });
  };
  return { stateDir, states, attempt, task };
}

describe('pruneAttemptEvidence', () => {
  it('prunes old failed attempts of finished and blocked tasks, never an active task’s or a blocked task’s latest', async () => {
    const { stateDir, states, attempt, task } = stateFolder();
    await task('g/done', { phase: 'done' }, [
      attempt('done-1', 30, 'generic-error'),
      attempt('done-2', 30, 'success'),
    ]);
    await task('g/active', { phase: 'worker' }, [attempt('active-1', 30, 'generic-error')]);
    await task(
      'g/blocked',
      {
        phase: 'worker',
        blocked: { stage: 'worker', reason: 'r', evidence: [], at: now.toISOString() },
      },
      [attempt('blocked-1', 30, 'generic-error'), attempt('blocked-2', 30, 'generic-error')],
    );
    await task('g/recent', { phase: 'done' }, [attempt('recent-1', 1, 'generic-error')]);
    const report = pruneAttemptEvidence({ stateDir, states, olderThanMs: 14 * DAY, now });
    expect(report.pruned.map((p) => p.attempt).sort()).toEqual(['blocked-1', 'done-1']);
    expect(report.protected).toBe(2);
    expect(readdirSync(join(stateDir, 'attempts', 'done-1')).sort()).toEqual([
      'evidence-pruned.json',
      'locator.json',
    ]);
    for (const kept of ['done-2', 'active-1', 'blocked-2', 'recent-1'])
      expect(readdirSync(join(stateDir, 'attempts', kept))).toContain('stdout.raw');
    // pruned once: a second run finds nothing more by age
    expect(pruneAttemptEvidence({ stateDir, states, olderThanMs: 14 * DAY, now }).pruned).toEqual(
      [],
    );
  });

  it('by size: oldest failed attempts first, until the attempt folders fit', async () => {
    const { stateDir, states, attempt, task } = stateFolder();
    await task('g/a', { phase: 'done' }, [
      attempt('a-old', 9, 'generic-error', 10_000),
      attempt('a-mid', 5, 'generic-error', 10_000),
      attempt('a-new', 2, 'generic-error', 10_000),
    ]);
    const dry = pruneAttemptEvidence({
      stateDir,
      states,
      maxTotalBytes: 15_000,
      now,
      dryRun: true,
    });
    expect(dry.pruned.map((p) => [p.attempt, p.why])).toEqual([
      ['a-old', 'size'],
      ['a-mid', 'size'],
    ]);
    expect(readdirSync(join(stateDir, 'attempts', 'a-old'))).toContain('stdout.raw');
  });

  it('never follows a state record that points outside the attempts folder', async () => {
    const { stateDir, states, attempt, task } = stateFolder();
    const outside = mkdtempSync(join(tmpdir(), 'sy-outside-'));
    writeFileSync(join(outside, 'precious.txt'), 'keep me');
    const record = { ...attempt('x', 30, 'generic-error'), attemptDir: outside };
    await task('g/x', { phase: 'done' }, [record]);
    expect(pruneAttemptEvidence({ stateDir, states, olderThanMs: DAY, now }).pruned).toEqual([]);
    expect(readdirSync(outside)).toEqual(['precious.txt']);
  });
});
