import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { describe, expect, it, vi } from 'vitest';
import { attemptEnvironment, PROCESS_MARKER_VAR } from './environment.js';
import { formatHeartbeat, readLastHeartbeat } from './heartbeat.js';
import { attemptPaths } from './layout.js';
import { probeAttemptProcess } from './liveness.js';
import { readLocator, writeLocator } from './locator-file.js';
import { recordClassification } from './record-classification.js';
import { frameHeader, readStreamLog, scanStreamLog } from './stream-log.js';
import { fillTemplate } from './template.js';
import { sameWorkspace, workspaceIdentity } from './workspace-identity.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'sy-attempt-'));

describe('fillTemplate', () => {
  it('keeps the prompt one argv element whatever it contains', () => {
    const prompt = 'fix "it"; rm -rf / && echo $HOME\nsecond line';
    const argv = fillTemplate(
      ['claude', '-p', '{prompt}', '--model', '{model}', '--dir={workspace}'],
      {
        prompt,
        model: 'm1',
        workspace: '/w',
      },
    );
    expect(argv).toEqual(['claude', '-p', prompt, '--model', 'm1', '--dir=/w']);
  });

  it('reports every unknown or unset placeholder at once', () => {
    try {
      fillTemplate(['x', '{nope}', '{session_id}'], {});
      expect.unreachable();
    } catch (error) {
      expect(SwitchyardError.is(error) && error.problems.map((p) => p.message)).toEqual([
        'argv[1]: unknown placeholder {nope}',
        'argv[2]: no value for {session_id}',
      ]);
    }
  });
});

describe('stream.log framing', () => {
  it('round-trips interleaved frames and ignores a torn last frame', async () => {
    const file = join(tmp(), 'stream.log');
    const at = new Date('2026-01-01T00:00:00Z');
    const chunks: ['stdout' | 'stderr', string][] = [
      ['stdout', 'hello\n'],
      ['stderr', 'warn\r\n'],
      ['stdout', 'wor'],
      ['stdout', 'ld\n\u0000bin'],
    ];
    const offsets = { stdout: 0, stderr: 0 };
    for (const [stream, text] of chunks) {
      const data = Buffer.from(text);
      appendFileSync(
        file,
        Buffer.concat([
          frameHeader(stream, offsets[stream], data.length, at),
          data,
          Buffer.from('\n'),
        ]),
      );
      offsets[stream] += data.length;
    }
    appendFileSync(file, '@stdout 99 50 2026-01-01T00:00:00.000Z\npartial');
    const frames = [];
    for await (const frame of readStreamLog(file))
      frames.push([frame.stream, frame.data.toString()]);
    expect(frames).toEqual(chunks);
    const pos = await scanStreamLog(file);
    expect(pos.stdout).toBe(Buffer.byteLength('hello\nworld\n\u0000bin'));
    expect(pos.stderr).toBe(6);
  });
});

describe('locator and heartbeat', () => {
  it('writes and reads a locator; a damaged one reports every problem', async () => {
    const dir = tmp();
    const ws = await workspaceIdentity(dir);
    const env = attemptEnvironment({
      attemptId: 'a1',
      role: 'worker',
      workspace: dir,
      attemptDir: dir,
    });
    expect(env[PROCESS_MARKER_VAR]).toBe('a1');
    const written = await writeLocator(dir, {
      schemaVersion: 1,
      attemptId: 'a1',
      taskId: 'g/t',
      role: 'worker',
      planLoop: 0,
      targetId: 't1',
      agent: 'agent-x',
      model: 'model-y',
      executionClass: 'cloud_model',
      runtime: { command: ['x', '{prompt}'], argv: ['x', 'p'], outputFormat: 'jsonl' },
      catalog: { source: 'bundled', revision: 'abc' },
      process: {
        pid: 123,
        startToken: 'b:1',
        markerName: PROCESS_MARKER_VAR,
        marker: 'a1',
        pgid: 123,
      },
      workspace: ws,
      startedAt: new Date().toISOString(),
      result: 'running',
    });
    expect(await readLocator(dir)).toEqual(written);
    expect(sameWorkspace((await readLocator(dir)).workspace, await workspaceIdentity(dir))).toBe(
      true,
    );
    writeFileSync(
      attemptPaths(dir).locator,
      JSON.stringify({ ...written, planLoop: -1, agent: 3 }),
    );
    await expect(readLocator(dir)).rejects.toMatchObject({
      code: 'SY_STATE_CORRUPT',
      problems: [
        expect.objectContaining({ path: 'planLoop' }),
        expect.objectContaining({ path: 'agent' }),
      ],
    });
  });

  it('reads the last valid heartbeat, skipping a torn line', async () => {
    const file = join(tmp(), 'heartbeat.log');
    const beat = {
      at: new Date().toISOString(),
      pid: 1,
      alive: true,
      stdoutBytes: 10,
      stderrBytes: 0,
      lines: 2,
      retryLines: 0,
      idleMs: 5,
    };
    appendFileSync(file, formatHeartbeat(beat) + formatHeartbeat({ ...beat, stdoutBytes: 20 }));
    appendFileSync(file, '{"at":"2026');
    expect((await readLastHeartbeat(file))?.stdoutBytes).toBe(20);
  });
});

describe('recordClassification', () => {
  it('stores the verdict with its exact evidence lines', async () => {
    const dir = tmp();
    await writeLocator(dir, {
      schemaVersion: 1,
      attemptId: 'a2',
      taskId: 'g/t',
      role: 'review',
      planLoop: 1,
      targetId: 't',
      agent: 'a',
      model: 'm',
      executionClass: 'local_model',
      runtime: { command: ['x'], argv: ['x'], outputFormat: 'text' },
      catalog: { source: 'bundled', revision: 'r' },
      process: { pid: 9, markerName: PROCESS_MARKER_VAR, marker: 'a2', pgid: 9 },
      workspace: await workspaceIdentity(dir),
      startedAt: new Date().toISOString(),
      result: 'running',
    });
    const line = 'API Error: 429 rate limited';
    const locator = await recordClassification(dir, {
      class: 'provider-quota',
      confidence: 'certain',
      evidence: [line],
      classifier: 'x',
      retryAfter: '2026-01-01T10:00:00.000Z',
    });
    expect(await readLocator(dir)).toEqual(locator);
    expect(locator).toMatchObject({
      result: 'failure',
      failureClass: 'provider-quota',
      evidence: [line],
      retryAfter: '2026-01-01T10:00:00.000Z',
    });
  });
});

describe('probeAttemptProcess', () => {
  it('tells a live attempt process from a gone or reused pid', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn('sleep', ['30'], {
      stdio: 'ignore',
      env: { ...process.env, [PROCESS_MARKER_VAR]: 'probe-1' },
    });
    const pid = child.pid!;
    const { readStartToken, hasEnvironmentMarker } = await import('@switchyard/utils');
    await vi.waitFor(
      () => expect(hasEnvironmentMarker(pid, PROCESS_MARKER_VAR, 'probe-1')).toBe(true),
      { timeout: 20_000, interval: 20 },
    );
    const proc = {
      pid,
      startToken: readStartToken(pid),
      markerName: PROCESS_MARKER_VAR,
      marker: 'probe-1',
      pgid: pid,
    };
    expect(probeAttemptProcess({ process: proc })).toBe('alive');
    expect(probeAttemptProcess({ process: { ...proc, marker: 'other' } })).toBe('reused');
    expect(probeAttemptProcess({ process: { ...proc, startToken: 'x:1' } })).toBe('reused');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(probeAttemptProcess({ process: proc })).toBe('gone');
  });
});
