import { closeSync, ftruncateSync, openSync } from 'node:fs';
import type {
  AttemptLocator,
  EndedBy,
  ReattachOptions,
  RunHandle,
  RunnerSpec,
  RunOutcome,
} from '@switchyard/core';
import {
  attemptPaths,
  createLocator,
  PROCESS_MARKER_VAR,
  recordLocatorExit,
  sandboxedArgv,
  scanStreamLog,
  workspaceIdentity,
} from '@switchyard/runner-kit';
import {
  hasEnvironmentMarker,
  isSameProcessAlive,
  processAgeMs,
  readStartToken,
} from '@switchyard/utils';
import { AttemptMonitor } from './attempt-monitor.js';
import type { AttemptHooks, HooksFactory } from './hooks.js';
import { attemptBornSinceMs } from './marker-scan.js';
import { EVIDENCE_APPEND, EVIDENCE_MODE } from './owned-append.js';
import { terminateAttempt } from './process-group.js';
import { sandboxedExit } from './sandbox-exit.js';
import { type AgentExit, spawnAgent } from './spawn-agent.js';

const DEFAULTS = { killGraceMs: 5000, heartbeatIntervalMs: 5000, pollIntervalMs: 250 };

interface Controller {
  dir: string;
  locator: AttemptLocator;
  monitor: AttemptMonitor;
  hooks: AttemptHooks;
  exit: Promise<AgentExit>;
  /** Started inside a sandbox (bwrap is the process watched). */
  sandboxed: boolean;
  killGraceMs: number;
  startedAt: Date;
  /** `startedAt` on `performance.now()`'s clock: the attempt's duration is measured on it. */
  startedAtMonotonicMs: number;
  /** Started here (not re-attached): `startedAt` was taken before its agent was spawned, so
   * the leftover scan passes over processes older than it. */
  spawnedHere: boolean;
}

/** Wires exit, watchdog and cancel into one `done` promise. */
function control(c: Controller, setEnd: (end: (reason: EndedBy) => void) => void): RunHandle {
  let endedBy: EndedBy | undefined;
  const pgid = c.locator.process.pgid;
  const marker = { name: c.locator.process.markerName, value: c.locator.process.marker };
  const bornSince = () =>
    c.spawnedHere
      ? { bornSinceMs: attemptBornSinceMs(c.startedAt.getTime(), c.startedAtMonotonicMs) }
      : {};
  const end = (reason: EndedBy) => {
    if (endedBy !== undefined) return;
    endedBy = reason;
    void terminateAttempt({ pgid, graceMs: c.killGraceMs, marker, ...bornSince() });
  };
  setEnd(end);
  const done = (async (): Promise<RunOutcome> => {
    const ended = await c.exit;
    // The leader is gone; leave no process of its group behind, nor one carrying its marker
    // (a `setsid` descendant left the group but still has the attempt's environment). In a
    // sandbox whose agent exited by itself, bwrap's init stands for whatever is left (see
    // terminateAttempt's `contained`).
    const contained = c.sandboxed && ended.exitObserved && ended.signal === null && !endedBy;
    await terminateAttempt({ pgid, graceMs: c.killGraceMs, marker, contained, ...bornSince() });
    const exit = c.sandboxed ? sandboxedExit(ended) : ended;
    const { evidence, durable } = c.monitor.end({
      exitCode: exit.exitCode,
      signal: exit.signal,
      ...(endedBy ? { endedBy } : {}),
    });
    const endedAt = new Date();
    const sessionId = c.hooks.sessionId?.();
    // The locator writer's second write (see core `locator-writer.ts` for the order), made
    // while the evidence files are fsynced: it is not fsynced itself, so nothing durable
    // comes before it, and the outcome is handed on only once both are done, as before.
    const written = await Promise.allSettled([
      durable,
      recordLocatorExit(c.dir, c.locator, {
        endedAt,
        exitCode: exit.exitCode,
        signal: exit.signal,
        exitObserved: exit.exitObserved,
        ...(endedBy ? { endedBy } : {}),
        ...(sessionId ? { sessionId } : {}),
        // provisional until the dispatcher finalizes it with the classification
        result:
          exit.exitCode === 0 && !endedBy && evidence.terminalEvents.length === 0
            ? 'success'
            : 'failure',
      }),
    ]);
    for (const w of written) if (w.status === 'rejected') throw w.reason;
    return {
      exitCode: exit.exitCode,
      signal: exit.signal,
      exitObserved: exit.exitObserved,
      ...(endedBy ? { endedBy } : {}),
      evidence,
      counters: { ...c.monitor.counters },
      ...(sessionId ? { sessionId } : {}),
      startedAt: c.startedAt,
      endedAt,
      durationMs: Math.max(0, Math.round(performance.now() - c.startedAtMonotonicMs)),
    };
  })();
  return {
    attemptId: c.locator.attemptId,
    pid: c.locator.process.pid,
    startToken: c.locator.process.startToken,
    done,
    cancel: () => {
      end('cancel');
      return done;
    },
    progress: () => ({ ...c.monitor.counters }),
    sessionId: () => c.hooks.sessionId?.(),
  };
}

// A workspace's identity does not change while a dispatcher runs: resolve it once per path.
const identities = new Map<string, ReturnType<typeof workspaceIdentity>>();
function cachedWorkspaceIdentity(dir: string): ReturnType<typeof workspaceIdentity> {
  let identity = identities.get(dir);
  if (!identity) {
    identity = workspaceIdentity(dir);
    identity.catch(() => identities.delete(dir));
    identities.set(dir, identity);
  }
  return identity;
}

/** Starts an attempt (see the runner contract in core `runner-types.ts`). */
export async function startAttempt(spec: RunnerSpec, makeHooks?: HooksFactory): Promise<RunHandle> {
  if (spec.env[PROCESS_MARKER_VAR] !== spec.attemptId) {
    throw new Error(
      `runner spec env must set ${PROCESS_MARKER_VAR}=${spec.attemptId} (use attemptEnvironment())`,
    );
  }
  const startedAt = new Date();
  const startedAtMonotonicMs = performance.now();
  const hooks =
    makeHooks?.({
      agent: spec.agent,
      cwd: spec.cwd,
      startedAt,
      ...(spec.nativeSession ? { nativeSession: spec.nativeSession } : {}),
    }) ?? {};
  // Sandboxed: bwrap is the process started (and recorded); the agent runs inside it.
  const sandbox = spec.sandbox;
  const launch = sandbox ? { ...spec, argv: sandboxedArgv(sandbox, spec.cwd, spec.argv) } : spec;
  const [child, workspace] = await Promise.all([
    spawnAgent(launch),
    cachedWorkspaceIdentity(spec.cwd),
  ]);
  const locator = await createLocator(spec.attemptDir, {
    attemptId: spec.attemptId,
    fields: spec.locator,
    pid: child.pid,
    startToken: child.startToken ?? readStartToken(child.pid),
    workspace,
    startedAt,
    ...(sandbox
      ? { sandbox: { mode: sandbox.mode, network: sandbox.network, mounts: sandbox.mounts } }
      : {}),
  });
  let end: (reason: EndedBy) => void = () => {};
  const monitor = new AttemptMonitor({
    dir: spec.attemptDir,
    paths: attemptPaths(spec.attemptDir),
    agent: spec.agent,
    outputFormat: spec.outputFormat,
    pid: child.pid,
    startToken: locator.process.startToken,
    stallTimeoutMs: spec.stallTimeoutMs,
    retryLoopTimeoutMs: spec.retryLoopTimeoutMs,
    ...(spec.maxAttemptMs !== undefined ? { maxAttemptMs: spec.maxAttemptMs } : {}),
    startedAtMonotonicMs,
    pollIntervalMs: spec.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
    heartbeatIntervalMs: spec.heartbeatIntervalMs ?? DEFAULTS.heartbeatIntervalMs,
    ...(spec.isRetryLine ? { isRetryLine: spec.isRetryLine } : {}),
    ...(spec.transcript ? { transcript: spec.transcript } : {}),
    ...(spec.secrets ? { secrets: spec.secrets } : {}),
    hooks,
    onWatchdog: (reason) => end(reason),
  });
  monitor.start();
  const controller: Controller = {
    dir: spec.attemptDir,
    locator,
    monitor,
    hooks,
    exit: child.exit,
    sandboxed: sandbox !== undefined,
    killGraceMs: spec.killGraceMs ?? DEFAULTS.killGraceMs,
    startedAt,
    startedAtMonotonicMs,
    spawnedHere: true,
  };
  return control(controller, (e) => {
    end = e;
  });
}

/**
 * Resumes watching an attempt started by a dispatcher that died. The process must be the
 * same (pid + start token) and carry the marker; tailing resumes at the offsets stream.log
 * recorded (a torn last frame is cut off), and tails/terminal events are rebuilt from the
 * last MiB of each stream. Its exit status cannot be read (not our child): the outcome has
 * `exitObserved: false`, `exitCode: null`, and the classifiers judge from the stream.
 */
export async function reattachAttempt(
  locator: AttemptLocator,
  options: ReattachOptions,
  makeHooks?: HooksFactory,
): Promise<RunHandle | undefined> {
  const { pid, startToken, markerName, marker } = locator.process;
  if (!isSameProcessAlive({ pid, startToken }) || !hasEnvironmentMarker(pid, markerName, marker))
    return undefined;
  const paths = attemptPaths(options.attemptDir);
  const position = await scanStreamLog(paths.stream);
  const fd = openSync(paths.stream, EVIDENCE_APPEND, EVIDENCE_MODE);
  ftruncateSync(fd, position.validBytes);
  closeSync(fd);
  const startedAt = new Date(locator.startedAt);
  const startedAtMonotonicMs = performance.now() - attemptAgeMs(locator, startedAt);
  const hooks =
    makeHooks?.({
      agent: locator.agent,
      cwd: locator.workspace.realpath,
      startedAt,
      ...(options.nativeSession ? { nativeSession: options.nativeSession } : {}),
      ...(locator.sessionId ? { sessionId: locator.sessionId } : {}),
    }) ?? {};
  let end: (reason: EndedBy) => void = () => {};
  let vanished!: () => void;
  const gone = new Promise<void>((resolve) => {
    vanished = resolve;
  });
  const monitor = new AttemptMonitor({
    dir: options.attemptDir,
    paths,
    agent: locator.agent,
    outputFormat: locator.runtime.outputFormat,
    pid,
    startToken,
    stallTimeoutMs: options.stallTimeoutMs,
    retryLoopTimeoutMs: options.retryLoopTimeoutMs,
    ...(options.maxAttemptMs !== undefined ? { maxAttemptMs: options.maxAttemptMs } : {}),
    startedAtMonotonicMs,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? DEFAULTS.heartbeatIntervalMs,
    ...(options.isRetryLine ? { isRetryLine: options.isRetryLine } : {}),
    ...(options.transcript ? { transcript: options.transcript } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    hooks,
    offsets: { stdout: position.stdout, stderr: position.stderr },
    onWatchdog: (reason) => end(reason),
    onVanished: () => vanished(),
  });
  monitor.prime();
  monitor.start();
  const controller: Controller = {
    dir: options.attemptDir,
    locator,
    monitor,
    hooks,
    exit: gone.then(() => ({ exitCode: null, signal: null, exitObserved: false })),
    sandboxed: locator.sandbox !== undefined,
    killGraceMs: options.killGraceMs ?? DEFAULTS.killGraceMs,
    startedAt,
    startedAtMonotonicMs,
    spawnedHere: false,
  };
  return control(controller, (e) => {
    end = e;
  });
}

/**
 * How long a re-attached attempt has run: its process's age on the kernel's boot clock (a
 * wall-clock step while no dispatcher ran changes nothing), else the wall-clock time since
 * its locator's start, never negative.
 */
function attemptAgeMs(locator: AttemptLocator, startedAt: Date): number {
  return processAgeMs(locator.process.startToken) ?? Math.max(0, Date.now() - startedAt.getTime());
}
