import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageSourceFiles } from '../../../../scripts/source-files.mjs';
import { PROCESS_MARKER_VAR } from './environment.js';
import { readLocator } from './locator-file.js';
import { createLocator, finalizeLocator, recordLocatorExit } from './locator-writer.js';
import { workspaceIdentity } from './workspace-identity.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'sy-locator-writer-'));

const FIELDS = {
  taskId: 'g/t',
  role: 'worker',
  planLoop: 1,
  targetId: 'target-a',
  agent: 'agent-a',
  model: 'model-a',
  executionClass: 'local_model' as const,
  runtime: { command: ['x', '{prompt}'], argv: ['x', 'p'], outputFormat: 'text' as const },
  catalog: { source: 'bundled', revision: 'rev-1' },
};

async function launched(dir: string) {
  return createLocator(dir, {
    attemptId: 'a1',
    fields: FIELDS,
    pid: 4242,
    startToken: 'boot:123',
    workspace: await workspaceIdentity(dir),
    startedAt: new Date('2026-12-01T10:00:00.000Z'),
  });
}

describe('locator writer', () => {
  it('creates the launch locator with the process identity and marker, running', async () => {
    const dir = tmp();
    const locator = await launched(dir);
    expect(await readLocator(dir)).toEqual(locator);
    expect(locator).toMatchObject({
      schemaVersion: 1,
      attemptId: 'a1',
      ...FIELDS,
      process: {
        pid: 4242,
        startToken: 'boot:123',
        markerName: PROCESS_MARKER_VAR,
        marker: 'a1',
        pgid: 4242,
      },
      startedAt: '2026-12-01T10:00:00.000Z',
      result: 'running',
    });
    expect(locator.endedAt).toBeUndefined();
  });

  it('records the exit over the launch fields, then finalizes with the verdict', async () => {
    const dir = tmp();
    const start = await launched(dir);
    const ended = await recordLocatorExit(dir, start, {
      endedAt: new Date('2026-12-01T10:00:05.000Z'),
      exitCode: 1,
      signal: null,
      exitObserved: true,
      endedBy: 'stall',
      sessionId: 'sess-1',
      result: 'failure',
    });
    expect(await readLocator(dir)).toEqual(ended);
    expect(ended).toMatchObject({
      process: start.process,
      workspace: start.workspace,
      endedAt: '2026-12-01T10:00:05.000Z',
      exitCode: 1,
      exitObserved: true,
      endedBy: 'stall',
      sessionId: 'sess-1',
      result: 'failure',
    });

    const line = 'API Error: 429 rate limited';
    const failed = await finalizeLocator(dir, {
      class: 'provider-quota',
      confidence: 'certain',
      evidence: [line],
      classifier: 'agent-a',
      retryAfter: '2026-12-01T11:00:00.000Z',
    });
    // What the runner recorded is kept; the verdict is added.
    expect(failed).toEqual({
      ...ended,
      result: 'failure',
      failureClass: 'provider-quota',
      evidence: [line],
      classifier: 'agent-a',
      retryAfter: '2026-12-01T11:00:00.000Z',
    });
    expect(await readLocator(dir)).toEqual(failed);

    // A later verdict replaces the earlier one whole: no stale retryAfter survives it.
    const success = await finalizeLocator(dir, {
      class: 'success',
      confidence: 'certain',
      evidence: [],
    });
    expect(success.result).toBe('success');
    expect(success.retryAfter).toBeUndefined();
    expect(success.sessionId).toBe('sess-1');
  });

  it('refuses to finalize an attempt that has no locator, naming the file', async () => {
    const dir = tmp();
    await expect(
      finalizeLocator(dir, { class: 'success', confidence: 'certain', evidence: [] }),
    ).rejects.toMatchObject({ code: 'SY_STATE_CORRUPT', file: join(dir, 'locator.json') });
  });

  it('leaves no temporary file beside locator.json', async () => {
    const dir = tmp();
    const start = await launched(dir);
    await recordLocatorExit(dir, start, {
      endedAt: new Date(),
      exitCode: 0,
      signal: null,
      exitObserved: true,
      result: 'success',
    });
    await finalizeLocator(dir, { class: 'success', confidence: 'certain', evidence: [] });
    expect(readdirSync(dir)).toEqual(['locator.json']);
  });
});

describe('one writer of locator.json', () => {
  it('no source file but the locator writer calls writeLocator', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
    const files = packageSourceFiles(root);
    expect(files.length).toBeGreaterThan(50);
    const writers = files
      .filter((file) => /\bwriteLocator\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    // locator-file.ts defines the validated atomic write; locator-writer.ts (the runner's launch
    // and exit writes, the dispatcher's verdict) and the file store's attempt index call it.
    expect(writers.sort()).toEqual([
      'packages/runner-kit/src/attempt/locator-file.ts',
      'packages/runner-kit/src/attempt/locator-writer.ts',
      'packages/store-fs/src/fs-attempts.ts',
    ]);
  });
});
