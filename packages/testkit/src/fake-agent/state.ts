import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** What identifies "the same job" across runs: attempt numbers count runs with the same key. */
export interface RunKey {
  role: string;
  task: string;
  target: string;
}

/**
 * Records this run in the scenario's state file (JSONL, one line per run, appended with
 * O_APPEND so parallel runs do not corrupt it) and returns its 1-based attempt number among
 * earlier runs with the same key, plus every session id issued so far (for resume checks).
 */
export function recordRun(
  stateFile: string,
  key: RunKey,
  sessionId: string,
  pid = process.pid,
): { attempt: number; sessions: Set<string> } {
  let previous = 0;
  const sessions = new Set<string>();
  try {
    for (const line of readFileSync(stateFile, 'utf8').split('\n')) {
      if (!line) continue;
      const run = JSON.parse(line) as RunKey & { sessionId?: string };
      if (run.sessionId) sessions.add(run.sessionId);
      if (run.role === key.role && run.task === key.task && run.target === key.target) previous++;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(stateFile), { recursive: true });
  appendFileSync(
    stateFile,
    `${JSON.stringify({ ...key, sessionId, pid, at: new Date().toISOString() })}\n`,
  );
  return { attempt: previous + 1, sessions };
}
