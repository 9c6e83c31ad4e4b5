import type { AttemptLocator } from '@switchyard/core';
import { hasEnvironmentMarker, isSameProcessAlive } from '@switchyard/utils';

/**
 * Whether an attempt's process still runs, judged from PID + start token + process marker
 * (never from heartbeat mtime):
 * - `alive`: the same process (start token matches) and it carries the marker;
 * - `gone`: no such process any more;
 * - `reused`: the PID now belongs to another process (start token or marker differs).
 */
export function probeAttemptProcess(
  locator: Pick<AttemptLocator, 'process'>,
): 'alive' | 'gone' | 'reused' {
  const { pid, startToken, markerName, marker } = locator.process;
  if (!isSameProcessAlive({ pid, startToken })) {
    return isSameProcessAlive({ pid, startToken: undefined }) ? 'reused' : 'gone';
  }
  return hasEnvironmentMarker(pid, markerName, marker) ? 'alive' : 'reused';
}
