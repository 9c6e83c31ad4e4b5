import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  attemptPaths,
  frameHeader,
  PROCESS_MARKER_VAR,
  workspaceIdentity,
  writeLocator,
} from '@switchyard/runner-kit';
import { describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from './catalog-helpers.js';

vi.setConfig({ testTimeout: 60_000 });

const FIXTURES = new URL('../../../test/agent-contract/fixtures/', import.meta.url);

async function capture(agent: string, name: string) {
  return JSON.parse(await readFile(new URL(`${agent}/${name}.json`, FIXTURES), 'utf8')) as {
    stdout: string;
    stderr: string;
    exitCode: number;
  };
}

async function files(stdout: string, stderr: string) {
  const dir = await tempDir('sy-classify-');
  await writeFile(join(dir, 'out'), stdout);
  await writeFile(join(dir, 'err'), stderr);
  return { out: join(dir, 'out'), err: join(dir, 'err') };
}

describe('switchyard classify (flags)', () => {
  it('classifies real Claude Code output and prints the reset time', async () => {
    const run = await capture('claude-code/2.1.332', 'text.rate-limit');
    const f = await files(run.stdout, run.stderr);
    const args = ['classify', '--agent', 'claude-code', '--exit-code', '1', '--stdout', f.out];
    const r = await runCli([
      ...args,
      '--stderr',
      f.err,
      '--ended-at',
      '2026-11-30T12:00:00Z',
      '--json',
    ]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      class: 'provider-quota',
      confidence: 'certain',
      classifier: '@switchyard/classifier-claude-code',
      retryAfter: '2026-11-30T12:00:30.000Z',
      evidence: [expect.stringContaining('API Error: Request rejected (429)')],
    });
    const text = await runCli([...args, '--stderr', f.err]);
    expect(text.stdout).toMatch(/^class: {7}provider-quota \(certain\)$/m);
    expect(text.stdout).toMatch(/^ {2}API Error: Request rejected \(429\)/m);
  });

  it("prints the evidence's control characters as escapes, not as terminal commands", async () => {
    const f = await files('', 'API Error: Request rejected (429) \x1b[2J\x1b]0;owned\x07 retry\n');
    const r = await runCli([
      ...['classify', '--agent', 'claude-code', '--exit-code', '1'],
      ...['--stdout', f.out, '--stderr', f.err],
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^ {2}API Error: Request rejected \(429\)/m);
    expect(r.stdout).not.toMatch(/[\x07\x1b]/);
    expect(r.stdout).toContain('\\x1b[2J\\x1b]0;owned\\x07 retry');
  });

  it('calls a clean exit success even when the prose talks about quota', async () => {
    const prose =
      '{"type":"assistant","message":{"content":[{"type":"text","text":"API Error: 429 rate limit quota exceeded"}]}}\n' +
      '{"type":"result","subtype":"success","is_error":false,"result":"I fixed the rate limit quota handling (429)."}\n';
    const f = await files(prose, '');
    const r = await runCli([
      'classify',
      '--agent',
      'claude-code',
      '--output-format',
      'jsonl',
      '--exit-code',
      '0',
      '--stdout',
      f.out,
      '--stderr',
      f.err,
      '--json',
    ]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ class: 'success' });
  });

  it('reports every usage problem at once with exit 2', async () => {
    const r = await runCli([
      'classify',
      '--output-format',
      'xml',
      '--exit-code',
      'x',
      '--time-zone',
      'Mars/Base',
    ]);
    expect(r.exitCode).toBe(2);
    for (const m of [
      '--agent is required',
      '--output-format must be text or jsonl',
      '--exit-code must be an integer',
      'give --stdout',
      '--time-zone',
    ]) {
      expect(r.stderr).toContain(m);
    }
    expect((await runCli(['classify', '--bogus'])).exitCode).toBe(2);
    const missing = await runCli([
      'classify',
      '--agent',
      'codex',
      '--exit-code',
      '1',
      '--stdout',
      '/nonexistent/out',
    ]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('/nonexistent/out');
  });
});

describe('switchyard classify <attempt-dir>', () => {
  it('reads locator.json and stream.log of an attempt', async () => {
    const run = await capture('codex/0.171.0', 'jsonl.stream-cut');
    const dir = await tempDir('sy-attempt-');
    await writeLocator(dir, {
      schemaVersion: 1,
      attemptId: 'a1',
      taskId: 'g/t',
      role: 'worker',
      planLoop: 0,
      targetId: 'cloud-codex',
      agent: 'codex',
      model: 'gpt-x',
      executionClass: 'cloud_model',
      runtime: {
        command: ['codex', 'exec', '--json', '{prompt}'],
        argv: ['codex', 'exec', '--json', 'p'],
        outputFormat: 'jsonl',
      },
      catalog: { source: 'bundled', revision: 'abc' },
      process: {
        pid: 123,
        startToken: 'b:1',
        markerName: PROCESS_MARKER_VAR,
        marker: 'a1',
        pgid: 123,
      },
      workspace: await workspaceIdentity(dir),
      startedAt: '2026-11-30T11:59:00.000Z',
      endedAt: '2026-11-30T12:00:00.000Z',
      exitCode: 1,
      signal: null,
      result: 'failure',
    });
    const log = attemptPaths(dir).stream;
    const offsets = { stdout: 0, stderr: 0 };
    // interleave the two streams in chunks, as the dispatcher records them
    for (const [stream, text] of [
      ['stderr', run.stderr],
      ['stdout', run.stdout],
    ] as const) {
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 97) {
        const chunk = bytes.subarray(i, i + 97);
        await appendFile(
          log,
          Buffer.concat([
            frameHeader(stream, offsets[stream], chunk.length, new Date()),
            chunk,
            Buffer.from('\n'),
          ]),
        );
        offsets[stream] += chunk.length;
      }
    }
    const r = await runCli(['classify', dir, '--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      class: 'provider-stream-disconnect',
      agent: 'codex',
      classifier: '@switchyard/classifier-codex',
      evidence: [expect.stringContaining('"type":"turn.failed"')],
    });
  });
});
