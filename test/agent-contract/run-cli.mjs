// Runs one real agent CLI once against the mock provider and returns what it did.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AGENTS, agentVersion, NODE24, VARIANTS } from './agents.mjs';

/** Faults the captures cover: the mock's HTTP/stream faults plus a refused connection. */
export const CAPTURE_FAULTS = [
  'none',
  'rate-limit',
  'quota',
  'overloaded',
  'prompt-too-long',
  'unknown-model',
  'unauthorized',
  'server-error',
  'stream-cut',
  'connection-refused',
  'hang',
];

const MAX_LINE = 3000;
const HEAD_LINES = 40;
const TAIL_LINES = 300;

/** Keeps fixtures small: long lines are cut, very long outputs keep head and tail. */
export function trimOutput(text) {
  let lines = text
    .split('\n')
    .map((l) =>
      l.length > MAX_LINE ? `${l.slice(0, MAX_LINE)}…[${l.length - MAX_LINE} chars trimmed]` : l,
    );
  if (lines.length > HEAD_LINES + TAIL_LINES) {
    const dropped = lines.length - HEAD_LINES - TAIL_LINES;
    lines = [
      ...lines.slice(0, HEAD_LINES),
      `…[${dropped} lines trimmed]`,
      ...lines.slice(-TAIL_LINES),
    ];
  }
  return lines.join('\n');
}

/**
 * Runs `agent` in `mode` ('text' | 'jsonl') with `base` as the provider URL, HOME and cwd in a
 * fresh temp dir, stdin closed, in its own process group; kills the group after `timeoutMs`.
 */
export async function runCli({ agent, mode, fault, base, variant, timeoutMs = 120_000 }) {
  // `hang`: the provider never answers; the run is cancelled like the dispatcher cancels an
  // attempt (SIGTERM to the group, SIGKILL after a grace period).
  const cancelAfterMs = fault === 'hang' ? 10_000 : undefined;
  const spec = AGENTS[agent];
  const root = await mkdtemp(join(tmpdir(), `sy-contract-${agent}-`));
  const home = join(root, 'home');
  const work = join(root, 'work');
  await import('node:fs/promises').then((fs) => Promise.all([fs.mkdir(home), fs.mkdir(work)]));
  const extra = await spec.setup({ home, base });
  const env = {
    PATH: `${dirname(NODE24)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TERM: 'dumb',
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
    ...extra,
  };
  const [command, ...prefix] = spec.command();
  const argv = variant === undefined ? spec.args[mode] : VARIANTS[agent][variant](spec.args[mode]);
  const args = [...prefix, ...argv];
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: work,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const out = [];
  const err = [];
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => err.push(c));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }, timeoutMs);
  let cancelled = false;
  let graceTimer;
  const cancelTimer =
    cancelAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          cancelled = true;
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {}
          graceTimer = setTimeout(() => {
            try {
              process.kill(-child.pid, 'SIGKILL');
            } catch {}
          }, 5000);
        }, cancelAfterMs);
  const [exitCode, signal] = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, sig) => resolve([code, sig]));
  });
  clearTimeout(timer);
  clearTimeout(cancelTimer);
  clearTimeout(graceTimer);
  try {
    process.kill(-child.pid, 'SIGKILL'); // leave no helper processes behind
  } catch {}
  const elapsedMs = Math.round(performance.now() - started);
  const scrub = (s) => s.split(root).join('<tmp>').split(base).join('<mock-url>');
  await rm(root, { recursive: true, force: true });
  return {
    agent,
    cli: spec.pkg,
    version: agentVersion(agent),
    ...(variant === undefined ? {} : { variant }),
    mode,
    fault,
    argv: [
      command.split('/').pop(),
      ...args.map((a) => (a.startsWith('/') ? a.split('/').pop() : a)),
    ],
    retryKnob: spec.retryKnob,
    exitCode,
    signal,
    timedOut,
    cancelled,
    elapsedMs,
    stdout: trimOutput(scrub(Buffer.concat(out).toString('utf8'))),
    stderr: trimOutput(scrub(Buffer.concat(err).toString('utf8'))),
  };
}
