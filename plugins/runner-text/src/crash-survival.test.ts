import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attemptPaths, readLocator, readStreamLog } from '@switchyard/runner-kit';
import { isSameProcessAlive } from '@switchyard/utils';
import { describe, expect, it, vi } from 'vitest';
import { reattachAttempt, startAttempt } from './run-attempt.js';
import { nodeScript, testSpec } from './test-helpers.js';

const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
/** Waits until `condition` holds (checked every 10 ms; the test's timeout bounds the wait). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  await vi.waitFor(async () => expect(await condition()).toBe(true), {
    timeout: 25_000,
    interval: 10,
  });
}

/** The stdout the stream log holds so far (frames may split lines anywhere). */
async function streamedStdout(streamLog: string): Promise<string> {
  let text = '';
  try {
    for await (const frame of readStreamLog(streamLog))
      if (frame.stream === 'stdout') text += frame.data.toString();
  } catch {
    // not written yet
  }
  return text;
}

describe('crash survival', () => {
  it('the agent outlives a SIGKILLed dispatcher; reattach resumes tailing exactly where it stopped', async () => {
    // The agent writes in three parts, each after a gate file appears in its folder: before the
    // crash, while no dispatcher reads, after the reattach.
    const gate = (name: string) => `while [ ! -e ${name} ]; do sleep 0.01; done`;
    const lines = (from: number, to: number) =>
      `for i in $(seq ${from} ${to}); do echo "line $i"; done`;
    const spec = testSpec([
      'sh',
      '-c',
      `${lines(1, 20)}; ${gate('crashed')}; ${lines(21, 30)}; ${gate('reattached')}; ${lines(31, 40)}; echo "stderr end" >&2`,
    ]);
    const openGate = (name: string) => writeFileSync(join(spec.cwd, name), '');
    const paths = attemptPaths(spec.attemptDir);
    const fileHas = (path: string, text: string) => {
      try {
        return readFileSync(path).includes(text);
      } catch {
        return false;
      }
    };
    // a real dispatcher process running the built runner
    const dispatcher = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startAttempt } = await import(${JSON.stringify(dist)}); const h = await startAttempt(${JSON.stringify(spec)}); console.log('started ' + h.pid); await h.done;`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    dispatcher.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise((r) => dispatcher.once('exit', r));
    const started = await new Promise<string>((resolve, reject) => {
      dispatcher.stdout.once('data', (d: Buffer) => resolve(d.toString()));
      dispatcher.once('exit', (code) =>
        reject(new Error(`dispatcher exited ${code} first: ${stderr}`)),
      );
    });
    expect(started).toMatch(/^started \d+/);
    // the dispatcher has tailed the first part into the stream log, then dies
    await until(async () => (await streamedStdout(paths.stream)).includes('line 20\n'));
    dispatcher.kill('SIGKILL');
    await exited;

    const locator = await readLocator(spec.attemptDir);
    expect(locator.result).toBe('running');
    expect(
      isSameProcessAlive({ pid: locator.process.pid, startToken: locator.process.startToken }),
    ).toBe(true);
    // still writing, nobody reading
    const before = statSync(paths.stdoutRaw).size;
    openGate('crashed');
    await until(() => fileHas(paths.stdoutRaw, 'line 30\n'));
    expect(statSync(paths.stdoutRaw).size).toBeGreaterThan(before);
    expect(await streamedStdout(paths.stream)).not.toContain('line 21\n');

    const handle = await reattachAttempt(locator, {
      attemptDir: spec.attemptDir,
      stallTimeoutMs: 30_000,
      retryLoopTimeoutMs: 30_000,
      pollIntervalMs: 20,
    });
    expect(handle?.pid).toBe(locator.process.pid);
    openGate('reattached');
    const outcome = await handle!.done;
    expect(outcome).toMatchObject({ exitObserved: false, exitCode: null });
    expect(outcome.evidence.stdoutTail.at(-1)).toBe('line 40');
    expect(outcome.evidence.stdoutTail).toContain('line 1'); // rebuilt from before the crash
    expect(outcome.evidence.stderrTail).toEqual(['stderr end']);
    const rebuilt = { stdout: '', stderr: '' };
    for await (const frame of readStreamLog(paths.stream))
      rebuilt[frame.stream] += frame.data.toString();
    expect(rebuilt.stdout).toBe(readFileSync(paths.stdoutRaw, 'utf8')); // every byte exactly once
    expect((await readLocator(spec.attemptDir)).exitObserved).toBe(false);
  });

  it('reattach refuses a process that is gone', async () => {
    const spec = testSpec(['true']);
    await (await startAttempt(spec)).done;
    const locator = await readLocator(spec.attemptDir);
    expect(
      await reattachAttempt(locator, {
        attemptDir: spec.attemptDir,
        stallTimeoutMs: 1000,
        retryLoopTimeoutMs: 1000,
      }),
    ).toBeUndefined();
  });
});

describe('flat memory', () => {
  it('streams 200 MB with flat memory', { timeout: 180_000 }, async () => {
    const total = 200 * 1024 * 1024;
    const spec = testSpec(
      nodeScript(
        `const b = Buffer.alloc(1 << 20, 'abcdefghij'.repeat(6) + 'klm\\n'); let n = 0; const w = () => { while (n < ${total}) { n += b.length; if (!process.stdout.write(b)) return process.stdout.once('drain', w); } }; w();`,
      ),
    );
    const base = process.memoryUsage().rss;
    const peak = { firstHalf: base, secondHalf: base };
    const handle = await startAttempt(spec);
    const sampler = setInterval(() => {
      const half = handle.progress().stdoutBytes < total / 2 ? 'firstHalf' : 'secondHalf';
      peak[half] = Math.max(peak[half], process.memoryUsage().rss);
    }, 10);
    const outcome = await handle.done;
    clearInterval(sampler);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.counters.stdoutBytes).toBe(total);
    expect(outcome.counters.lines).toBe(total / 64);
    expect(statSync(attemptPaths(spec.attemptDir).stream).size).toBeGreaterThan(total);
    // bounded well below the stream size (RSS includes lazily collected garbage, so no tight
    // per-half comparison): memory does not follow the 200 MB that went through
    const growth = Math.max(peak.firstHalf, peak.secondHalf) - base;
    expect(growth).toBeLessThan(100 * 1024 * 1024);
    rmSync(spec.cwd, { recursive: true, force: true });
  });
});
