import type { StoreSetting } from '@switchyard/config';
import { parseLeaseHolder } from '@switchyard/core';

/** One task of the shared backlog as `status --store` shows it. */
export interface SharedTaskStatus {
  task: string;
  status: string;
  /** The machine working on it (or the last one): host and dispatcher PID. */
  machine?: string;
  holder?: string;
  /** That machine's lease expired (it died or froze): the next dispatcher takes the task over. */
  leaseExpired?: true;
}

/**
 * `switchyard status` on a shared store: every task of the workspace's backlog (the scope of
 * its branch's upstream) with its status and the machine that holds (or last held) it.
 */
export async function printSharedStatus(
  workspace: string,
  setting: Extract<StoreSetting, { kind: 'postgres' }>,
  json: boolean,
): Promise<void> {
  const { openSharedStore } = await import('./shared-backlog.js');
  const shared = await openSharedStore(workspace, setting);
  try {
    const tasks: SharedTaskStatus[] = (await shared.backlog.list()).map((view) => {
      const who = view.holder ? parseLeaseHolder(view.holder) : undefined;
      return {
        task: view.task,
        status: view.status,
        ...(who ? { machine: `${who.host} pid ${who.pid}` } : {}),
        ...(view.holder ? { holder: view.holder } : {}),
        ...(view.leaseExpired ? { leaseExpired: view.leaseExpired } : {}),
      };
    });
    if (json) {
      const { printJson } = await import('../output.js');
      printJson({ schema_version: 1, store: shared.store.location, scope: shared.scope, tasks });
      return;
    }
    const width = Math.max(4, ...tasks.map((t) => t.task.length));
    const lines = [`backlog ${shared.scope} on ${shared.store.location}`];
    if (tasks.length === 0) lines.push('  no task published yet (`switchyard submit` or `run`)');
    for (const t of tasks) {
      const expired = t.leaseExpired ? ' (lease expired: the next dispatcher takes it over)' : '';
      lines.push(
        `  ${t.task.padEnd(width)}  ${t.status.padEnd(8)}  ${t.machine ?? ''}${expired}`.trimEnd(),
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await shared.store.close();
  }
}
