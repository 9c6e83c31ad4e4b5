import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore, stateDir } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { laneKey, laneTitle } from './client/collapse.js';
import { SnapshotReader } from './snapshot.js';

const plan = `---
route: cloud-G03
---
# task

## Modified Files Summary

- src/file.js

## Implementation Checklist

- [ ] do it
`;

describe('YAML plan lanes on the monitor', () => {
  it('puts each task of a plan session in its lane, with the lane’s label', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'sy-monitor-lanes-'));
    for (const id of ['release/1', 'release/2', 'release/3', 'other/x']) {
      mkdirSync(join(ws, 'agent-task', id), { recursive: true });
      writeFileSync(join(ws, 'agent-task', id, 'PLAN.md'), plan);
    }
    await new SessionStore(stateDir(ws)).create({
      schema_version: 1,
      id: 's-20261201T020000Z-1a2b',
      workspace: ws,
      createdAt: '2026-12-01T02:00:00.000Z',
      options: { taskGroup: 'release' },
      tasks: ['release/1', 'release/2', 'release/3'],
      yamlPlan: {
        file: join(ws, 'plan.yaml'),
        sha256: 'x',
        source: '…',
        parsed: {
          planId: 'release',
          lanes: [{ id: '0', label: 'Setup' }, { id: '1' }],
          tasks: [{ id: '1', lane: '0' }, { id: '2', lane: '1' }, { id: '3' }],
        },
      },
    });
    const reader = new SnapshotReader(ws);
    await reader.init();
    const tasks = new Map(reader.read().tasks.map((t) => [t.id, t]));
    expect(tasks.get('release/1')?.lane).toEqual({ id: '0', label: 'Setup', index: 0 });
    expect(tasks.get('release/2')?.lane).toEqual({ id: '1', index: 1 });
    expect(tasks.get('release/3')?.lane).toBeUndefined();
    expect(tasks.get('other/x')?.lane).toBeUndefined();
    // The page draws each lane as its own section, titled with the plan's label.
    const view = (id: string) => {
      const t = tasks.get(id);
      if (!t) throw new Error(`no task ${id}`);
      return t;
    };
    expect(['release/1', 'release/2', 'release/3'].map((id) => laneKey(view(id)))).toEqual([
      'release#0',
      'release#1',
      'release',
    ]);
    expect(laneTitle(view('release/1'))).toBe('release · Setup (lane 0)');
    expect(laneTitle(view('release/2'))).toBe('release · lane 1');
  });
});
