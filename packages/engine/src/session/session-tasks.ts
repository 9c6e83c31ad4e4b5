import type { RunEvent, SessionTask } from '@switchyard/core';

/**
 * Where a task stands after one run event, for the session's `status.json` snapshot (the
 * monitor's view of the session, kept current as the run goes): undefined for an event that
 * says nothing new about a task. `previous` is the task's entry so far (its plan loop stays).
 */
export function sessionTaskAfter(
  event: RunEvent,
  previous: SessionTask | undefined,
): SessionTask | undefined {
  const base = {
    at: event.at,
    ...(previous?.planLoop !== undefined ? { planLoop: previous.planLoop } : {}),
  };
  switch (event.type) {
    case 'task.admitted':
      return { ...base, state: 'admitted', planLoop: event.planLoop };
    case 'task.plan-loop':
      return { ...base, state: 'admitted', planLoop: event.planLoop };
    case 'attempt.started':
      return {
        ...base,
        state: 'running',
        stage: event.role,
        target: event.target,
        planLoop: event.planLoop,
      };
    case 'attempt.finished':
      return {
        ...base,
        state: 'running',
        stage: event.role,
        target: event.target,
        detail: `${event.role} ${event.result}`,
      };
    case 'attempt.retry-scheduled':
      return {
        ...base,
        state: 'waiting',
        stage: event.role,
        target: event.target,
        detail: `retry in ${Math.round(event.delayMs / 1000)} s: ${event.reason}`,
      };
    case 'task.waiting':
      return { ...base, state: 'waiting', detail: `${event.reason}: ${event.detail}` };
    case 'task.parked':
      return {
        ...base,
        state: 'waiting',
        stage: event.stage,
        detail: `parked until ${event.until}`,
      };
    case 'gate.finished':
      return {
        ...base,
        state: 'running',
        stage: 'gate',
        detail: `${event.passed ? 'passed' : 'failed'}: ${event.detail}`,
      };
    case 'task.blocked':
      return { ...base, state: 'blocked', stage: event.stage, detail: event.reason };
    case 'task.archived':
      return { ...base, state: 'done', detail: event.archiveDir };
    default:
      return undefined;
  }
}
