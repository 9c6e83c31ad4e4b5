import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnerSpec } from '@switchyard/core';
import { attemptEnvironment, readLocator } from '@switchyard/runner-kit';
import { describe, expect, it } from 'vitest';
import runner from './index.js';
import { planResume } from './resume.js';
import { sessionIdFromEvent, sessionIdFromTextLine } from './session-id.js';

const fakeAgent = createRequire(import.meta.url)
  .resolve('@switchyard/testkit/package.json')
  .replace(/package\.json$/, 'dist/fake-agent-bin.js');

function spec(argv: string[], root: string, extra: Partial<RunnerSpec> = {}): RunnerSpec {
  const attemptId = `n-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const attemptDir = join(root, `attempt-${attemptId}`);
  return {
    attemptId,
    attemptDir,
    agent: 'codex',
    outputFormat: 'jsonl',
    argv,
    cwd: root,
    env: attemptEnvironment({ attemptId, role: 'worker', workspace: root, attemptDir }),
    stallTimeoutMs: 30_000,
    retryLoopTimeoutMs: 30_000,
    pollIntervalMs: 20,
    killGraceMs: 500,
    locator: {
      taskId: 'g/t',
      role: 'worker',
      planLoop: 0,
      targetId: 't',
      agent: extra.agent ?? 'codex',
      model: 'm',
      executionClass: 'cloud_model',
      runtime: { command: argv, argv, outputFormat: 'jsonl' },
      catalog: { source: 'bundled', revision: 'r' },
    },
    ...extra,
  };
}

const workspace = () => realpathSync(mkdtempSync(join(tmpdir(), 'sy-native-')));

describe('session ids', () => {
  it('reads each family’s session id from its init event only', () => {
    expect(
      sessionIdFromEvent('claude-code', { type: 'system', subtype: 'init', session_id: 'c1' }),
    ).toBe('c1');
    expect(
      sessionIdFromEvent('claude-code', { type: 'assistant', session_id: 'c1' }),
    ).toBeUndefined();
    expect(
      sessionIdFromEvent('qwen-code', { type: 'system', subtype: 'init', session_id: 'q1' }),
    ).toBe('q1');
    expect(sessionIdFromEvent('codex', { type: 'thread.started', thread_id: 'x1' })).toBe('x1');
    expect(sessionIdFromEvent('gemini-cli', { type: 'init', session_id: 'g1' })).toBe('g1');
    expect(sessionIdFromEvent('other', { type: 'session.start', sessionId: 'o1' })).toBe('o1');
  });

  it('reads Copilot’s session id from its JSON result and from its text footer', () => {
    const captured = (mode: string) =>
      JSON.parse(
        readFileSync(
          new URL(
            `../../../test/agent-contract/fixtures/copilot/1.0.102/${mode}.none.json`,
            import.meta.url,
          ),
          'utf8',
        ),
      ) as { stdout: string; stderr: string };
    const json = captured('jsonl');
    const result = JSON.parse(json.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result.type).toBe('result');
    expect(sessionIdFromEvent('copilot', result)).toBe(result.sessionId);
    const footer = captured('text').stderr.split('\n');
    const ids = footer.map((l) => sessionIdFromTextLine('copilot', l)).filter(Boolean);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sessionIdFromTextLine('codex', 'Resume     copilot --resume=abc')).toBeUndefined();
  });

  it('records Copilot’s session id from the footer of a real text-mode run', {
    timeout: 20_000,
  }, async () => {
    const root = workspace();
    const capture = new URL(
      '../../../test/agent-contract/fixtures/copilot/1.0.102/text.none.json',
      import.meta.url,
    );
    // replays what copilot 1.0.102 printed: the reply on stdout, the footer on stderr
    const script = `const c = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(capture.pathname)}, 'utf8'));
      process.stdout.write(c.stdout); process.stderr.write(c.stderr);`;
    const s = spec([process.execPath, '-e', script], root, {
      agent: 'copilot',
      outputFormat: 'text',
    });
    const done = await (await runner.start(s)).done;
    expect(done.exitCode).toBe(0);
    expect(done.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await readLocator(s.attemptDir)).sessionId).toBe(done.sessionId);
  });

  it('records the session id of a real run, and a resume keeps it', {
    timeout: 20_000,
  }, async () => {
    const root = workspace();
    const scenario = join(root, 'scenario.yaml');
    writeFileSync(
      scenario,
      'format: codex\nsessionId: 0199a213-81c0-7800-8aa1-bbab2a035a53\nsteps:\n  - say: hi\n',
    );
    const first = await (
      await runner.start(spec([process.execPath, fakeAgent, '--scenario', scenario], root))
    ).done;
    expect(first.sessionId).toBe('0199a213-81c0-7800-8aa1-bbab2a035a53');
    const plan = planResume({
      resumeCommand: [
        process.execPath,
        fakeAgent,
        '--scenario',
        scenario,
        '--resume',
        '{session_id}',
        '{prompt}',
      ],
      sessionId: first.sessionId,
      workspace: root,
      values: { prompt: 'continue' },
    });
    expect('argv' in plan).toBe(true);
    const s = spec((plan as { argv: string[] }).argv, root);
    const resumed = await (await runner.start(s)).done;
    expect(resumed.exitCode).toBe(0);
    expect(resumed.sessionId).toBe(first.sessionId);
    expect((await readLocator(s.attemptDir)).sessionId).toBe(first.sessionId);
  });
});

describe('native session monitor', () => {
  it('counts session file growth as progress while stdout is silent', {
    timeout: 20_000,
  }, async () => {
    const root = workspace();
    const sessions = join(root, 'sessions');
    const id = '2b5e7c8a-1111-4222-8333-944455556666';
    const file = join(sessions, 'proj', `${id}.jsonl`);
    mkdirSync(join(sessions, 'proj'), { recursive: true });
    const script = `
      const fs = require('node:fs');
      console.log(JSON.stringify({ type: 'system', subtype: 'init', session_id: '${id}' }));
      let n = 0;
      const t = setInterval(() => {
        fs.appendFileSync(${JSON.stringify(file)}, JSON.stringify({ cwd: process.cwd(), n: n++ }) + '\\n');
        if (n === 30) { clearInterval(t); console.log(JSON.stringify({ type: 'result', result: 'ok' })); }
      }, 100);`;
    const s = spec([process.execPath, '-e', script], root, {
      agent: 'claude-code',
      stallTimeoutMs: 2500,
      nativeSession: { sessionPath: sessions, monitor: true },
    });
    const outcome = await (await runner.start(s)).done;
    expect(outcome.endedBy).toBeUndefined();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.counters.sessionBytes).toBeGreaterThan(0);

    const silent = spec([process.execPath, '-e', script], root, {
      agent: 'claude-code',
      stallTimeoutMs: 2500,
    });
    expect((await (await runner.start(silent)).done).endedBy).toBe('stall');
  });
});

describe('planResume', () => {
  const values = { prompt: 'go on' };
  const command = ['agent', 'resume', '{session_id}', '{prompt}'];

  it('resumes only a session recorded in this workspace', () => {
    const root = workspace();
    const other = workspace();
    const sessions = join(root, 'sessions');
    mkdirSync(join(sessions, '2026', '01', '02'), { recursive: true });
    writeFileSync(
      join(sessions, '2026', '01', '02', 'rollout-2026-01-02T10-00-00-aaaa1111-0000.jsonl'),
      `${JSON.stringify({ type: 'session_meta', payload: { id: 'aaaa1111-0000', cwd: root } })}\n`,
    );
    writeFileSync(
      join(sessions, 'bbbb2222-0000.jsonl'),
      `${JSON.stringify({ type: 'user', cwd: other, sessionId: 'bbbb2222-0000' })}\n`,
    );
    const hash = createHash('sha256').update(root).digest('hex');
    writeFileSync(
      join(sessions, 'session-2026-01-02T10-00-cccc3333.json'),
      JSON.stringify({ sessionId: 'cccc3333-0000', projectHash: hash, messages: [] }, null, 2),
    );

    expect(
      planResume({
        resumeCommand: command,
        sessionId: 'aaaa1111-0000',
        workspace: root,
        sessionPath: sessions,
        values,
      }),
    ).toMatchObject({
      argv: ['agent', 'resume', 'aaaa1111-0000', 'go on'],
    });
    expect(
      planResume({
        resumeCommand: command,
        sessionId: 'bbbb2222-0000',
        workspace: root,
        sessionPath: sessions,
        values,
      }),
    ).toMatchObject({
      reason: expect.stringContaining('belongs to another workspace'),
    });
    expect(
      planResume({
        resumeCommand: command,
        sessionId: 'cccc3333-0000',
        workspace: root,
        sessionPath: sessions,
        values,
      }),
    ).toMatchObject({
      argv: ['agent', 'resume', 'cccc3333-0000', 'go on'],
    });
    expect(
      planResume({
        resumeCommand: command,
        sessionId: 'dddd-missing',
        workspace: root,
        sessionPath: sessions,
        values,
      }),
    ).toMatchObject({
      reason: expect.stringContaining('no session file'),
    });
    expect(
      planResume({ resumeCommand: undefined, sessionId: 'x', workspace: root, values }),
    ).toMatchObject({ reason: 'the target has no resume_command' });
  });
});
