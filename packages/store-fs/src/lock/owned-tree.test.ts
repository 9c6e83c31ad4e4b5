import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findUnsafeOwnedPaths } from './owned-tree.js';

let root: string;
let ws: string;
let victim: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sy-owned-'));
  ws = join(root, 'ws');
  mkdirSync(join(ws, 'agent-task', 'g', 't'), { recursive: true });
  victim = join(root, 'victim');
  writeFileSync(victim, 'original\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the owned tree', () => {
  it('a clean tree has no unsafe owned paths', () => {
    mkdirSync(join(ws, 'agent-task', '.switchyard', 'tasks', 'g'), { recursive: true });
    writeFileSync(join(ws, 'agent-task', 'g', 'WORK_LOG.md'), '');
    expect(findUnsafeOwnedPaths(ws)).toEqual([]);
  });

  it('an archived group holds its task folders and its work logs as files; a linked log is flagged', () => {
    const archived = join(ws, 'agent-task', 'archive', 'g');
    mkdirSync(join(archived, 't'), { recursive: true });
    writeFileSync(join(archived, 't', 'complete.log'), 'done\n');
    writeFileSync(join(archived, 'work_log_1.log'), '');
    expect(findUnsafeOwnedPaths(ws)).toEqual([]);
    symlinkSync(victim, join(archived, 'work_log_2.log'));
    expect(findUnsafeOwnedPaths(ws).map((p) => p.file)).toEqual([join(archived, 'work_log_2.log')]);
  });
});
