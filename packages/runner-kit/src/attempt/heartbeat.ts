import { open } from 'node:fs/promises';
import { z } from 'zod';

/**
 * One line of `heartbeat.log` (JSON). A heartbeat records what the dispatcher OBSERVED; the
 * file's mtime says only that the dispatcher lives and is never agent progress. Progress is
 * `stdoutBytes`/`stderrBytes`/`lines`/`sessionBytes` growing between heartbeats.
 */
export const heartbeatSchema = z.object({
  at: z.iso.datetime({ offset: true }),
  pid: z.number().int(),
  alive: z.boolean().describe('Same pid + start token still running.'),
  stdoutBytes: z.number().int().nonnegative().describe('Bytes of stdout.raw consumed so far.'),
  stderrBytes: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative().describe('Output lines framed so far (both streams).'),
  retryLines: z.number().int().nonnegative().describe('Lines that only announced a retry.'),
  sessionBytes: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Size of the native session file.'),
  idleMs: z.number().int().nonnegative().describe('Time since the last real progress.'),
});

export type Heartbeat = z.infer<typeof heartbeatSchema>;

/** The log line for a heartbeat (with its newline). */
export function formatHeartbeat(beat: Heartbeat): string {
  return `${JSON.stringify(beat)}\n`;
}

/** Parses one heartbeat line; undefined for a damaged (e.g. half-written) line. */
export function parseHeartbeat(line: string): Heartbeat | undefined {
  try {
    const parsed = heartbeatSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The last valid heartbeat of a heartbeat.log (reads only its last 64 KiB). */
export async function readLastHeartbeat(file: string): Promise<Heartbeat | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, size - length);
    const lines = buf.toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const beat = parseHeartbeat(lines[i]!);
      if (beat) return beat;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}
