// Sandboxed attempts (bubblewrap) on the shared runner: the process recorded is bwrap, and
// everything the runner promises still holds: evidence files, prompt on stdin, the exit told as
// without a sandbox (a signal stays a signal), cancel and the time limit end every process of
// the sandbox, and an agent outlives a SIGKILLed dispatcher (no --die-with-parent) and is
// re-attached.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findExecutable } from '@switchyard/catalog';
import type { RunnerSpec, SandboxSpec } from '@switchyard/core';
import { PROCESS_MARKER_VAR, readLocator } from '@switchyard/runner-kit';
import { findProcessesWithMarker, isSameProcessAlive } from '@switchyard/utils';
import { describe, expect, it, vi } from 'vitest';
import { groupMembers } from './process-group.js';
import { reattachAttempt, startAttempt } from './run-attempt.js';
import { testSpec } from './test-helpers.js';

const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

function bwrap(): string {
  const found = findExecutable('bwrap');
  if (!found) throw new Error('bwrap is missing: apt-get install -y bubblewrap (see .ci/run)');
  return found;
}

/** A sandbox whose only writable folder is the spec's workspace (its attempt folder is inside). */
function sandboxed(argv: string[], overrides: Partial<RunnerSpec> = {}): RunnerSpec {
  const spec = testSpec(argv, overrides);
  const sandbox: SandboxSpec = {
    mode: 'bwrap',
    command: bwrap(),
    network: 'host',
    mounts: [
      { type: 'ro-bind', path: '/', why: 'root' },
      { type: 'dev', path: '/dev', why: 'dev' },
      { type: 'proc', path: '/proc', why: 'proc' },
      { type: 'tmpfs', path: '/tmp', why: 'tmp' },
      { type: 'bind', path: spec.cwd, why: 'worktree' },
    ],
  };
  return { ...spec, sandbox };
}

/** PIDs whose command line is `cmdline` (NUL-separated). */
const running = (cmdline: string) =>
  readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'latin1') === cmdline;
    } catch {
      return false;
    }
  });

const carriers = (spec: RunnerSpec) =>
  findProcessesWithMarker(PROCESS_MARKER_VAR, spec.attemptId).length;

async function until(condition: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(condition()).toBe(true), { timeout: 25_000, interval: 10 });
}

describe('sandboxed attempts', { timeout: 60_000 }, () => {
  it('prompt on stdin, output, a signal told as a signal; an exit, cancel and the time limit end the whole sandbox', async () => {
    // reads its prompt from stdin, writes it out, leaves a grandchild behind, then waits
    const waiter = sandboxed([
      'sh',
      '-c',
      'cat; echo; echo "on stderr" >&2; (sleep 300 &) ; echo started; sleep 300',
    ]);
    writeFileSync(join(waiter.cwd, 'prompt.md'), 'the prompt on stdin');
    waiter.stdinFile = join(waiter.cwd, 'prompt.md');
    const limited = sandboxed(['sh', '-c', '(sleep 300 &); echo up; sleep 300'], {
      maxAttemptMs: 300,
    });
    const crashing = sandboxed(['sh', '-c', 'echo before; kill -SEGV $$']);
    // exits by itself, leaving processes behind: one with the marker, and one that left both
    // the group and the marker (setsid, a cleared environment), which only the sandbox finds:
    // bwrap's init lives on for it, with the marker
    const leaving = sandboxed(['sh', '-c', '(sleep 300 &); echo left one behind']);
    const hidden = `301.${process.pid}`;
    const unmarked = sandboxed([
      'sh',
      '-c',
      `(setsid env -i /bin/sleep ${hidden} &); echo left one behind`,
    ]);
    const [w, l, c, x, u] = await Promise.all(
      [waiter, limited, crashing, leaving, unmarked].map((s) => startAttempt(s)),
    );
    for (const [handle, spec] of [
      [x!, leaving],
      [u!, unmarked],
    ] as const) {
      expect(await handle.done).toMatchObject({ exitCode: 0, signal: null });
      expect(carriers(spec)).toBe(0);
      expect(groupMembers(handle.pid)).toEqual([]);
    }
    expect(running(`/bin/sleep\0${hidden}\0`)).toEqual([]);

    const crashed = await c!.done;
    expect(crashed).toMatchObject({ exitCode: null, signal: 'SIGSEGV', exitObserved: true });
    expect(crashed.evidence.stdoutTail).toEqual(['before']);
    const locator = await readLocator(crashing.attemptDir);
    expect(locator.sandbox?.mounts.at(-1)).toEqual({
      type: 'bind',
      path: crashing.cwd,
      why: 'worktree',
    });
    expect(locator.runtime.argv).toEqual(crashing.argv); // the agent's argv, not bwrap's

    await until(() => w!.progress().lines >= 2);
    expect(carriers(waiter)).toBeGreaterThanOrEqual(3); // bwrap, its init, sh, sleeps
    const cancelled = await w!.cancel();
    expect(cancelled.endedBy).toBe('cancel');
    expect(cancelled.evidence.stdoutTail.slice(0, 2)).toEqual(['the prompt on stdin', 'started']);
    expect(cancelled.evidence.stderrTail).toEqual(['on stderr']);
    expect(carriers(waiter)).toBe(0);

    const timedOut = await l!.done;
    expect(timedOut.endedBy).toBe('time-limit');
    expect(carriers(limited)).toBe(0);
  });

  it('the sandboxed agent outlives a SIGKILLed dispatcher and is re-attached', async () => {
    const gate = (name: string) => `while [ ! -e ${name} ]; do sleep 0.01; done`;
    const spec = sandboxed([
      'sh',
      '-c',
      `echo "before"; ${gate('crashed')}; echo "while nobody watched"; ${gate('reattached')}; echo "after"`,
    ]);
    const dispatcher = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startAttempt } = await import(${JSON.stringify(dist)}); const h = await startAttempt(${JSON.stringify(spec)}); console.log('started ' + h.pid); await h.done;`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((r) => dispatcher.once('exit', r));
    await new Promise((resolve) => dispatcher.stdout.once('data', resolve));
    const stdout = join(spec.attemptDir, 'stdout.raw');
    await until(() => readFileSync(stdout, 'utf8').includes('before\n'));
    dispatcher.kill('SIGKILL');
    await exited;

    const locator = await readLocator(spec.attemptDir);
    expect(locator.sandbox?.mode).toBe('bwrap');
    const { pid, startToken } = locator.process;
    // the spawn helper ends with its dispatcher; bwrap, and the agent in it, do not
    writeFileSync(join(spec.cwd, 'crashed'), '');
    await until(() => readFileSync(stdout, 'utf8').includes('while nobody watched\n'));
    expect(isSameProcessAlive({ pid, startToken })).toBe(true);

    const handle = await reattachAttempt(locator, {
      attemptDir: spec.attemptDir,
      stallTimeoutMs: 30_000,
      retryLoopTimeoutMs: 30_000,
      pollIntervalMs: 20,
    });
    expect(handle?.pid).toBe(pid);
    writeFileSync(join(spec.cwd, 'reattached'), '');
    const outcome = await handle!.done;
    expect(outcome).toMatchObject({ exitObserved: false, exitCode: null });
    expect(outcome.evidence.stdoutTail).toEqual(['before', 'while nobody watched', 'after']);
    expect(carriers(spec)).toBe(0);
  });
});
