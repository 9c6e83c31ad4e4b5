import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { frameHeader, readStreamLog } from '../attempt/stream-log.js';
import { capAttemptEvidence } from './evidence-cap.js';

describe('capAttemptEvidence', () => {
  it('keeps files within the cap with head, marker and tail; stream.log keeps whole frames', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-cap-'));
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'y'.repeat(40)}`);
    writeFileSync(join(dir, 'stdout.raw'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'stderr.raw'), 'small\n');
    const frames: Buffer[] = [];
    let offset = 0;
    for (let i = 0; i < 2000; i++) {
      const data = Buffer.from(`chunk ${i} ${'z'.repeat(400)}`);
      frames.push(frameHeader('stdout', offset, data.length, new Date()), data, Buffer.from('\n'));
      offset += data.length;
    }
    writeFileSync(join(dir, 'stream.log'), Buffer.concat(frames));
    const cuts = capAttemptEvidence(dir, 256 * 1024);
    const size = (f: string) => statSync(join(dir, f)).size;
    expect(size('stdout.raw') + size('stderr.raw') + size('stream.log')).toBeLessThanOrEqual(
      256 * 1024,
    );
    expect(readFileSync(join(dir, 'stderr.raw'), 'utf8')).toBe('small\n');
    const stdout = readFileSync(join(dir, 'stdout.raw'), 'utf8');
    expect(stdout.startsWith('line 0 ')).toBe(true);
    expect(stdout.endsWith(`line 19999 ${'y'.repeat(40)}\n`)).toBe(true);
    // the marker names exactly the bytes that are gone
    const cut = cuts.find((c) => c.file === 'stdout.raw');
    const marker = /\n…\[switchyard: (\d+) bytes cut here[^\n]*\n/.exec(stdout);
    expect(marker).not.toBeNull();
    const markerBytes = Buffer.byteLength(marker?.[0] ?? '');
    expect(Number(marker?.[1])).toBe((cut?.cutBytes ?? 0) + markerBytes);
    // every remaining stream.log frame parses: the first and the last are kept
    const read: string[] = [];
    for await (const frame of readStreamLog(join(dir, 'stream.log')))
      read.push(frame.data.toString().split(' ').slice(0, 2).join(' '));
    expect(read[0]).toBe('chunk 0');
    expect(read.at(-1)).toBe('chunk 1999');
    expect(JSON.parse(readFileSync(join(dir, 'evidence-cut.json'), 'utf8')).cuts).toHaveLength(2);
  });

  it('leaves evidence within the cap alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-cap-'));
    writeFileSync(join(dir, 'stdout.raw'), 'hello\n');
    expect(capAttemptEvidence(dir, 1024)).toEqual([]);
    expect(readFileSync(join(dir, 'stdout.raw'), 'utf8')).toBe('hello\n');
  });
});
