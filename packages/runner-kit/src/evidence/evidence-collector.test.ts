import { describe, expect, it } from 'vitest';
import { type CollectedLine, collectEvidence, EvidenceCollector } from './evidence-collector.js';
import { TailBuffer } from './tail-buffer.js';

describe('EvidenceCollector', () => {
  it('collects tails, terminal events and the last event from JSONL chunks', () => {
    const seen: CollectedLine[] = [];
    const c = new EvidenceCollector({
      agent: 'some-agent',
      outputFormat: 'jsonl',
      isRetryLine: (l) => l.startsWith('Retrying'),
      onLine: (l) => seen.push(l),
    });
    c.write('stdout', '{"type":"init","session_id":"s1"}\nprogress 10%\n{"type":"err');
    c.write('stdout', 'or","message":"API Error: 429"}\r\n{"type":"result","is_error":true}');
    c.write('stderr', 'Retrying in 2s\nfatal: gave up\n');
    const evidence = c.finish({ exitCode: 1, signal: null });
    expect(evidence.stdoutTail).toEqual([
      '{"type":"init","session_id":"s1"}',
      'progress 10%',
      '{"type":"error","message":"API Error: 429"}',
      '{"type":"result","is_error":true}',
    ]);
    expect(evidence.stderrTail).toEqual(['Retrying in 2s', 'fatal: gave up']);
    expect(evidence.terminalEvents.map((e) => [e.line, e.reason])).toEqual([
      [3, 'type=error'],
      [4, 'is_error=true'],
    ]);
    expect(evidence.lastEvent).toEqual({ type: 'result', is_error: true });
    expect(evidence.retryLines).toEqual(['Retrying in 2s']);
    expect(evidence.exitCode).toBe(1);
    expect(seen.filter((l) => l.event !== undefined)).toHaveLength(3);
    expect(seen.find((l) => l.retry)?.stream).toBe('stderr');
  });

  it('parses nothing as JSON in text mode', () => {
    const evidence = collectEvidence({
      agent: 'a',
      outputFormat: 'text',
      stdout: '{"type":"error"}\n',
      stderr: '',
      exitCode: 0,
    });
    expect(evidence.terminalEvents).toEqual([]);
    expect(evidence.lastEvent).toBeUndefined();
  });

  it('keeps memory flat on long streams', () => {
    const c = new EvidenceCollector({ agent: 'a', outputFormat: 'jsonl', tailLines: 5 });
    for (let i = 0; i < 10_000; i++) c.write('stdout', `{"type":"error","n":${i}}\n`);
    const evidence = c.finish({ exitCode: 1 });
    expect(evidence.stdoutTail).toHaveLength(5);
    expect(evidence.stdoutTail.at(-1)).toBe('{"type":"error","n":9999}');
    expect(evidence.terminalEvents).toHaveLength(50);
    expect(evidence.terminalEvents.at(-1)?.line).toBe(10_000);
  });
});

describe('TailBuffer', () => {
  it('keeps the newest lines oldest-first and cuts long ones', () => {
    const t = new TailBuffer(3, 16);
    for (const l of ['1', '2', '3', '4', 'x'.repeat(40)]) t.push(l);
    expect(t.toArray()).toEqual(['3', '4', `${'x'.repeat(16)}…`]);
  });
});

describe('collectEvidence', () => {
  it('records the agent CLI version it was given', () => {
    const evidence = collectEvidence({
      agent: 'claude-code',
      outputFormat: 'text',
      stdout: 'hi\n',
      stderr: '',
      exitCode: 0,
      agentVersion: '2.1.197',
    });
    expect(evidence.agentVersion).toBe('2.1.197');
  });
});
