import {
  type SessionPlan,
  type SessionPort,
  type SessionStatus,
  SwitchyardError,
} from '@switchyard/core';
import { isSameProcessAlive, readStartToken } from '@switchyard/utils';

/** A session as read back from the store, its state judged against the live process table. */
export interface SessionView {
  plan: SessionPlan;
  status: SessionStatus;
  /** `crashed`: recorded as running, but its process is gone. */
  state: SessionStatus['state'] | 'crashed';
  /** Where a person finds its records (the session's folder in the file store). */
  dir: string;
}

/** The session, or a `SY_USAGE` error naming the recent ones. */
export async function readSession(sessions: SessionPort, id: string): Promise<SessionView> {
  const plan = await sessions.getPlan(id);
  const status = await sessions.getStatus(id);
  if (!plan || !status) {
    const known = (await sessions.ids()).slice(-5).join(', ') || '(none)';
    throw new SwitchyardError('SY_USAGE', `No session "${id}" in this workspace.`, {
      hint: `Recent sessions: ${known}.`,
    });
  }
  const alive =
    status.state === 'running' &&
    isSameProcessAlive({ pid: status.pid, startToken: status.startToken });
  return {
    plan,
    status,
    state: status.state === 'running' && !alive ? 'crashed' : status.state,
    dir: sessions.locate(id),
  };
}

/** Every session, oldest first (unreadable ones skipped). */
export async function listSessions(sessions: SessionPort): Promise<SessionView[]> {
  const views: SessionView[] = [];
  for (const id of await sessions.ids()) {
    try {
      views.push(await readSession(sessions, id));
    } catch {
      // a damaged or half-written session is not listed
    }
  }
  return views;
}

/** The status of a session run by this process from `now` on (a new run or a resume). */
export function runningStatus(
  id: string,
  previous: SessionStatus | undefined,
  now = new Date(),
): SessionStatus {
  const startToken = readStartToken(process.pid);
  return {
    schema_version: 1,
    id,
    state: 'running',
    pid: process.pid,
    ...(startToken ? { startToken } : {}),
    startedAt: previous?.startedAt ?? now.toISOString(),
    updatedAt: now.toISOString(),
    runs: previous?.runs ?? [],
  };
}
