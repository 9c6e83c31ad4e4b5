import { join } from 'node:path';
import type { SessionPort } from '@switchyard/core';
import {
  MONITOR_FILE,
  sessionMonitorSchema,
  sessionPlanSchema,
  sessionStatusSchema,
} from '@switchyard/core/dry-run';
import { ensureOwnedDir, readJsonFile, replaceFile } from '@switchyard/utils';
import { readEvents } from './events/read-events.js';
import { JsonlAppender } from './jsonl-file.js';
import { SessionStore } from './session/session-store.js';

const SESSION_FILE = {
  what: 'session file',
  hint: 'Session files are written atomically, so it was edited by hand; restore or delete the session folder.',
};

/**
 * Sessions in `sessions/<id>/`, as before: `plan.json` (written once, fsynced), `status.json`
 * (replaced atomically), `events.jsonl` (appended, one line per event) and
 * `monitor-server.json` (replaced atomically, owner-only: its URL carries the page's token).
 */
export function fsSessions(stateDir: string): SessionPort & { close(): void } {
  const paths = new SessionStore(stateDir); // folder names and id validation
  const appenders = new Map<string, JsonlAppender>();
  return {
    async create(plan, status) {
      const dir = paths.dirOf(plan.id);
      ensureOwnedDir(stateDir, dir);
      await replaceFile(join(dir, 'plan.json'), `${JSON.stringify(plan, null, 2)}\n`, {
        durable: true,
      });
      await this.putStatus(status);
    },
    async putStatus(status) {
      await replaceFile(
        join(paths.dirOf(status.id), 'status.json'),
        `${JSON.stringify(status, null, 2)}\n`,
        {
          durable: false,
        },
      );
    },
    async getPlan(id) {
      return readJsonFile(join(paths.dirOf(id), 'plan.json'), sessionPlanSchema, SESSION_FILE);
    },
    async getStatus(id) {
      return readJsonFile(join(paths.dirOf(id), 'status.json'), sessionStatusSchema, SESSION_FILE);
    },
    async ids() {
      return paths.ids();
    },
    async appendEvent(id, event) {
      let appender = appenders.get(id);
      if (!appender) {
        appender = new JsonlAppender(join(paths.dirOf(id), 'events.jsonl'));
        appenders.set(id, appender);
      }
      appender.append(JSON.stringify(event));
    },
    async readEvents(id) {
      return readEvents(join(paths.dirOf(id), 'events.jsonl')).events;
    },
    async putMonitor(id, monitor) {
      await replaceFile(
        join(paths.dirOf(id), MONITOR_FILE),
        `${JSON.stringify(sessionMonitorSchema.parse(monitor), null, 2)}\n`,
        { durable: false },
      );
    },
    async getMonitor(id) {
      return readJsonFile(join(paths.dirOf(id), MONITOR_FILE), sessionMonitorSchema, SESSION_FILE);
    },
    locate: (id) => paths.dirOf(id),
    close() {
      for (const appender of appenders.values()) appender.close();
      appenders.clear();
    },
  };
}
