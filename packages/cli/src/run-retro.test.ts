import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { RunEvent } from '@switchyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { writeRunRetro } from './run-retro.js';

const started = (runId: string, at: string, machine: string) =>
  ({
    type: 'run.started',
    at,
    runId,
    machine,
    workspace: '/w',
    pid: 1,
    catalog: { source: 'default', revision: 'r' },
    maxParallel: 1,
    tasks: 1,
  }) as unknown as RunEvent;

const logOf = (events: RunEvent[]) => ({
  read: async () => ({ events: events.map((event, seq) => ({ seq, event })) }),
});

describe("a run's retrospective file", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is of the run that ended, even when another machine started a run after it in a shared log', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'sy-run-retro-'));
    dirs.push(workspace);
    const log = logOf([
      started('run-a', '2026-12-02T10:00:00.000Z', 'a pid 1'),
      started('run-b', '2026-12-02T10:00:05.000Z', 'b pid 2'),
    ]);
    const ours = await writeRunRetro(workspace, log as never, {}, 'run-a');
    expect(ours && basename(ours)).toBe('2026-12-02-run-a.md');
    expect(readFileSync(ours as string, 'utf8')).toContain('# Retrospective: run-a\n');
    // without a run id (one machine's own log), the last run of the log
    const last = await writeRunRetro(workspace, log as never, {});
    expect(last && basename(last)).toBe('2026-12-02-run-b.md');
  });
});
