import type { SchedulePort } from '@switchyard/core';

/**
 * The scope schedules live in on a PostgreSQL store: one for the whole database, since a
 * daemon serves the workspaces of many repositories (a task backlog is scoped by repository).
 */
export const SCHEDULE_SCOPE = 'schedules';

/** Shared schedules and how to let go of them. */
export interface SharedSchedules {
  port: SchedulePort;
  close(): Promise<void>;
}

/**
 * The schedules of the store named by `--store` or `SWITCHYARD_STORE` when it is a PostgreSQL
 * one (shared by every daemon on it); undefined for this machine's `schedules.json`. The
 * project config's `store` is not read: a daemon serves many workspaces.
 */
export async function openSharedSchedules(flag?: string): Promise<SharedSchedules | undefined> {
  const { resolveStoreSetting, STORE_ENV } = await import('@switchyard/config');
  const setting = resolveStoreSetting({ flag, env: process.env[STORE_ENV] });
  if (setting.kind !== 'postgres') return undefined;
  const { openPostgresStore } = await import('@switchyard/store-postgres');
  const store = await openPostgresStore({ url: setting.url, scope: SCHEDULE_SCOPE, poolSize: 3 });
  return { port: store.schedules, close: () => store.close() };
}
