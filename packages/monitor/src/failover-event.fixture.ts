import type { RunEvent } from '@switchyard/core';

/** A failover event of `task` to `to`, as the monitor's tests write it into a run's event log. */
export const failoverEvent = (task: string, to = 'two'): RunEvent => ({
  type: 'target.failover',
  at: new Date().toISOString(),
  runId: 'r1',
  task,
  stage: 'worker',
  from: 'one',
  to,
  class: 'provider-quota',
  evidence: ['429 quota'],
});
