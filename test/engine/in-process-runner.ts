import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import {
  defineRunner,
  type EndedBy,
  type RunHandle,
  type RunnerPlugin,
  type RunnerSpec,
  type RunOutcome,
} from '@switchyard/core';
import {
  attemptPaths,
  createLocator,
  recordLocatorExit,
  workspaceIdentity,
} from '@switchyard/runner-kit';
import { AttemptMonitor } from '@switchyard/runner-text';
import {
  type FakeAgentEnd,
  type FakeAgentIo,
  FakeAgentKilled,
  runFakeAgent,
} from '@switchyard/testkit';

/**
 * The pid an in-process attempt records: above Linux's PID_MAX_LIMIT (2^22), so no process can
 * have it; every liveness check finds it gone and no signal reaches anyone.
 */
export const IN_PROCESS_PID = 2 ** 22 + 1;

/** The argv of the testkit's fake agent after its script (the scenario's flags and prompt). */
function fakeAgentArgs(argv: readonly string[]): string[] {
  const script = argv.findIndex((a) => /fake-agent(-bin)?\.js$/.test(a));
  if (script < 0)
    throw new Error(
      `the in-process runner plays only the testkit's fake agent; this target runs ${argv[0]}`,
    );
  return argv.slice(script + 1);
}

/**
 * A runner plugin that plays the fake agent's scenario inside this process, on the shared
 * attempt monitor of the real runners: the agent's output goes to the attempt's stdout.raw /
 * stderr.raw and is framed, collected, classified and watched for stalls exactly as a spawned
 * agent's. Only the process is missing: a stop aborts the scenario's wait and ends the run as
 * SIGTERM would. Sandboxes, native sessions and re-attaching need a process: refused here.
 */
export function inProcessRunner(): RunnerPlugin {
  return defineRunner({
    meta: { name: 'in-process fake agent' },
    outputFormats: ['text', 'jsonl'],
    promptDelivery: { argv: true, stdin: true },
    start: startInProcess,
    reattach: () => undefined,
  });
}

async function startInProcess(spec: RunnerSpec): Promise<RunHandle> {
  if (spec.sandbox) throw new Error('the in-process runner cannot sandbox an attempt');
  const args = fakeAgentArgs(spec.argv);
  mkdirSync(spec.attemptDir, { recursive: true });
  const paths = attemptPaths(spec.attemptDir);
  const fds = { 1: openSync(paths.stdoutRaw, 'a'), 2: openSync(paths.stderrRaw, 'a') };
  const startedAt = new Date();
  const startedAtMonotonicMs = performance.now();
  const locator = await createLocator(spec.attemptDir, {
    attemptId: spec.attemptId,
    fields: spec.locator,
    pid: IN_PROCESS_PID,
    workspace: await workspaceIdentity(spec.cwd),
    startedAt,
  });
  const stop = new AbortController();
  let endedBy: EndedBy | undefined;
  const end = (reason: EndedBy) => {
    endedBy ??= reason;
    stop.abort();
  };
  const monitor = new AttemptMonitor({
    dir: spec.attemptDir,
    paths,
    agent: spec.agent,
    outputFormat: spec.outputFormat,
    pid: IN_PROCESS_PID,
    startToken: undefined,
    stallTimeoutMs: spec.stallTimeoutMs,
    retryLoopTimeoutMs: spec.retryLoopTimeoutMs,
    ...(spec.maxAttemptMs !== undefined ? { maxAttemptMs: spec.maxAttemptMs } : {}),
    startedAtMonotonicMs,
    // a shorter poll than the real runners' 250 ms: a stall is seen sooner, nothing else changes
    pollIntervalMs: spec.pollIntervalMs ?? 100,
    heartbeatIntervalMs: spec.heartbeatIntervalMs ?? 5000,
    ...(spec.isRetryLine ? { isRetryLine: spec.isRetryLine } : {}),
    ...(spec.transcript ? { transcript: spec.transcript } : {}),
    ...(spec.secrets ? { secrets: spec.secrets } : {}),
    hooks: {},
    onWatchdog: end,
  });
  monitor.start();
  const io: FakeAgentIo = {
    write: (fd, data) => {
      writeSync(fds[fd], typeof data === 'string' ? Buffer.from(data) : data);
    },
    cwd: spec.cwd,
    pid: IN_PROCESS_PID,
    stdin: spec.stdinFile
      ? { kind: 'file', read: () => readFileSync(spec.stdinFile!, 'utf8') }
      : { kind: 'other', read: () => '' },
    kill: (signal) => Promise.reject(new FakeAgentKilled(signal)),
    signal: stop.signal,
  };
  const agent = runFakeAgent(args, { ...process.env, ...spec.env }, io).catch(
    (error: unknown): FakeAgentEnd => {
      // as a crashed node process: its stack on stderr, exit 1
      io.write(2, `${error instanceof Error ? error.stack : String(error)}\n`);
      return { exitCode: 1, signal: null };
    },
  );
  const done = (async (): Promise<RunOutcome> => {
    const ended = await agent;
    closeSync(fds[1]);
    closeSync(fds[2]);
    const evidence = await monitor.finish({
      exitCode: ended.exitCode,
      signal: ended.signal,
      ...(endedBy ? { endedBy } : {}),
    });
    const endedAt = new Date();
    await recordLocatorExit(spec.attemptDir, locator, {
      endedAt,
      exitCode: ended.exitCode,
      signal: ended.signal,
      exitObserved: true,
      ...(endedBy ? { endedBy } : {}),
      result:
        ended.exitCode === 0 && !endedBy && evidence.terminalEvents.length === 0
          ? 'success'
          : 'failure',
    });
    return {
      exitCode: ended.exitCode,
      signal: ended.signal,
      exitObserved: true,
      ...(endedBy ? { endedBy } : {}),
      evidence,
      counters: { ...monitor.counters },
      startedAt,
      endedAt,
      durationMs: Math.max(0, Math.round(performance.now() - startedAtMonotonicMs)),
    };
  })();
  return {
    attemptId: spec.attemptId,
    pid: IN_PROCESS_PID,
    startToken: undefined,
    done,
    cancel: () => {
      end('cancel');
      return done;
    },
    progress: () => ({ ...monitor.counters }),
    sessionId: () => undefined,
  };
}
