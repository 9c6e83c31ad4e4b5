import { constants } from 'node:os';
import type { AgentExit } from './spawn-client.js';

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number, name]),
);

/**
 * How a sandboxed agent ended, told as an unsandboxed one's would be. bwrap exits with the
 * agent's own status, except that an agent killed by signal N makes it exit 128+N: that is
 * turned back into the signal, so classifiers see `SIGSEGV` (or `SIGTERM`) either way.
 */
export function sandboxedExit(exit: AgentExit): AgentExit {
  if (!exit.exitObserved || exit.signal !== null || exit.exitCode === null) return exit;
  const signal = exit.exitCode > 128 ? SIGNAL_NAMES.get(exit.exitCode - 128) : undefined;
  return signal ? { exitCode: null, signal, exitObserved: true } : exit;
}
