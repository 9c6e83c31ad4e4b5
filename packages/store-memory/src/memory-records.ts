import {
  type AttemptIndexPort,
  type EscalationPort,
  type EventLogPort,
  type FencedWrite,
  type IsolationPort,
  openStartsAcrossLogs,
  type SessionPort,
  type TaskId,
  type WorkLogPort,
  type WorkLogRow,
} from '@switchyard/core';
import { copy, type MemoryStoreData, sortedKeys } from './memory-data.js';
import { checkFence } from './memory-ownership.js';

export function memoryEvents(data: MemoryStoreData): EventLogPort {
  return {
    async append(event, options) {
      checkFence(data, options?.fence);
      data.events.push(copy(event));
      return data.events.length;
    },
    async read(options = {}) {
      const after = Math.max(0, options.after ?? 0);
      const end = options.limit === undefined ? undefined : after + options.limit;
      const events = data.events
        .slice(after, end)
        .map((event, i) => ({ seq: after + i + 1, event: copy(event) }));
      return { events, next: events.at(-1)?.seq ?? after, skipped: [] };
    },
  };
}

export function memoryWorkLog(data: MemoryStoreData): WorkLogPort {
  return {
    async append(group, rows, options) {
      checkFence(data, options?.fence);
      data.workLogs.set(group, [...(data.workLogs.get(group) ?? []), ...copy(rows)]);
    },
    async flush() {},
    async read(group) {
      return copy(data.workLogs.get(group) ?? []);
    },
    async groups() {
      return [...data.workLogs].flatMap(([group, rows]) => (rows.length > 0 ? [group] : [])).sort();
    },
    // An archived log was last written at the time of its latest row.
    async openStarts(group, options = {}) {
      const since = options.archivedSince;
      const logs: { log: string; rows: WorkLogRow[] }[] = [];
      if (since !== undefined)
        (data.archivedWorkLogs.get(group) ?? []).forEach((rows, i) => {
          if (rows.some((row) => row.time.getTime() >= since))
            logs.push({ log: `memory:work-log/${group}/${i + 1}`, rows });
        });
      logs.push({ log: `memory:work-log/${group}`, rows: data.workLogs.get(group) ?? [] });
      return openStartsAcrossLogs(logs).map(({ row, log }) => ({ row: copy(row), log }));
    },
    async archive(group) {
      const rows = data.workLogs.get(group);
      if (!rows) return undefined;
      const archived = [...(data.archivedWorkLogs.get(group) ?? []), rows];
      data.archivedWorkLogs.set(group, archived);
      data.workLogs.delete(group);
      return `memory:work-log/${group}/${archived.length}`;
    },
  };
}

export function memoryAttempts(data: MemoryStoreData): AttemptIndexPort {
  return {
    async put(ref, locator, options) {
      checkFence(data, options?.fence);
      data.attempts.set(ref.attemptId, { ref: copy(ref), locator: copy(locator) });
    },
    async get(ref) {
      return copy(data.attempts.get(ref.attemptId)?.locator);
    },
    async list(task) {
      return [...data.attempts.values()]
        .filter((entry) => task === undefined || entry.locator.taskId === task)
        .sort((a, b) => a.locator.startedAt.localeCompare(b.locator.startedAt))
        .map(copy);
    },
  };
}

export function memorySessions(data: MemoryStoreData): SessionPort {
  return {
    async create(plan, status) {
      data.sessions.set(plan.id, { plan: copy(plan), status: copy(status), events: [] });
    },
    async putStatus(status) {
      const session = data.sessions.get(status.id);
      if (session) session.status = copy(status);
    },
    async getPlan(id) {
      return copy(data.sessions.get(id)?.plan);
    },
    async getStatus(id) {
      return copy(data.sessions.get(id)?.status);
    },
    async ids() {
      return sortedKeys(data.sessions);
    },
    async appendEvent(id, event) {
      data.sessions.get(id)?.events.push(copy(event));
    },
    async readEvents(id) {
      return copy(data.sessions.get(id)?.events ?? []);
    },
    async putMonitor(id, monitor) {
      const session = data.sessions.get(id);
      if (session) session.monitor = copy(monitor);
    },
    async getMonitor(id) {
      return copy(data.sessions.get(id)?.monitor);
    },
    locate: (id) => `memory:sessions/${id}`,
  };
}

export function memoryEscalations(data: MemoryStoreData): EscalationPort {
  return {
    async put(bundle, interview, options) {
      checkFence(data, options?.fence);
      data.escalations.set(bundle.task.id, { bundle: copy(bundle), interview: copy(interview) });
    },
    async get(task) {
      return copy(data.escalations.get(task));
    },
    async tasks() {
      return sortedKeys(data.escalations);
    },
    async resolve(task, action, at, by, note) {
      const stored = data.escalations.get(task);
      if (!stored) return;
      const resolution = {
        action,
        at: at.toISOString(),
        ...(by ? { by } : {}),
        ...(note ? { note } : {}),
      };
      data.escalations.set(task, {
        bundle: { ...stored.bundle, resolution },
        ...(stored.interview ? { interview: { ...stored.interview, resolution } } : {}),
      });
    },
    locate: (task) => ({
      bundle: `memory:escalations/${task}/failure-bundle`,
      interview: `memory:escalations/${task}/interview-request`,
    }),
  };
}

export function memoryIsolation(data: MemoryStoreData): IsolationPort {
  const records = fencedTaskMap(data, data.records);
  const journals = fencedTaskMap(data, data.journals);
  return {
    getRecord: records.get,
    putRecord: records.put,
    removeRecord: records.remove,
    recordTasks: records.tasks,
    getJournal: journals.get,
    putJournal: journals.put,
    removeJournal: journals.remove,
    journalTasks: journals.tasks,
  };
}

/** Worktree records and apply journals alike: one value per task, each write fenced. */
function fencedTaskMap<T extends { taskId: TaskId }>(data: MemoryStoreData, map: Map<string, T>) {
  return {
    get: async (task: TaskId) => copy(map.get(task)),
    put: async (value: T, options?: FencedWrite) => {
      checkFence(data, options?.fence);
      map.set(value.taskId, copy(value));
    },
    remove: async (task: TaskId, options?: FencedWrite) => {
      checkFence(data, options?.fence);
      map.delete(task);
    },
    tasks: async () => sortedKeys(map),
  };
}
