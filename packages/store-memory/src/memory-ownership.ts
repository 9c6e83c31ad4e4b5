import {
  type ClaimConflict,
  type ClaimPort,
  type Fence,
  fenceHolds,
  type Lease,
  type LeasePort,
  leaseLost,
  type TaskState,
  type TaskStateCursor,
  type TaskStatePort,
  versionConflict,
} from '@switchyard/core';
import { copy, type MemoryStoreData, sortedKeys } from './memory-data.js';

/** The current (unreleased) lease of a task. */
function currentLease(data: MemoryStoreData, task: string): Lease | undefined {
  const lease = data.leases.get(task);
  if (!lease || lease.released) return undefined;
  const { released: _, ...rest } = lease;
  return rest;
}

/** Throws `SY_LEASE_LOST` unless the fence is the task's current lease. */
export function checkFence(data: MemoryStoreData, fence: Fence | undefined): void {
  if (!fence) return;
  const current = currentLease(data, fence.task);
  if (!fenceHolds(fence, current)) throw leaseLost(fence, current);
}

export function memoryLeases(data: MemoryStoreData, now: () => number): LeasePort {
  return {
    async acquire(task, holder, ttlMs) {
      const at = now();
      const previous = data.leases.get(task);
      const live = currentLease(data, task);
      if (live && live.holder !== holder && live.expiresAt > at)
        return { ok: false, held: copy(live) };
      const lease: Lease =
        live && live.holder === holder
          ? { ...live, expiresAt: at + ttlMs }
          : {
              task,
              holder,
              token: (previous?.token ?? 0) + 1,
              expiresAt: at + ttlMs,
              acquiredAt: at,
            };
      data.leases.set(task, lease);
      return { ok: true, lease: copy(lease) };
    },
    async renew(leases, ttlMs) {
      const at = now();
      return leases.map((lease) => {
        const live = currentLease(data, lease.task);
        if (!live || live.token !== lease.token) return undefined;
        const renewed = { ...live, expiresAt: at + ttlMs };
        data.leases.set(lease.task, renewed);
        return copy(renewed);
      });
    },
    async release(lease) {
      const live = currentLease(data, lease.task);
      if (live && live.token === lease.token)
        data.leases.set(lease.task, { ...live, released: true });
    },
    async get(task) {
      return copy(currentLease(data, task));
    },
    async list() {
      return sortedKeys(data.leases).flatMap((task) => {
        const lease = currentLease(data, task);
        return lease ? [copy(lease)] : [];
      });
    },
  };
}

export function memoryTasks(data: MemoryStoreData, now: () => number): TaskStatePort {
  const check = (task: string, expected: number) => {
    const actual = data.tasks.get(task)?.version ?? 0;
    if (actual !== expected) throw versionConflict(`The state of ${task}`, expected, actual);
  };
  return {
    async get(task) {
      const entry = data.tasks.get(task);
      return entry ? { value: copy(entry.state), version: entry.version } : undefined;
    },
    async list() {
      return sortedKeys(data.tasks).map((task) => {
        const entry = data.tasks.get(task) as { state: TaskState; version: number };
        return { value: copy(entry.state), version: entry.version };
      });
    },
    async changes(since) {
      // Each write stores a new entry object: the cursor holds the entries as seen.
      type Entry = { state: TaskState; version: number };
      const before = (since as unknown as ReadonlyMap<string, Entry> | undefined) ?? new Map();
      const cursor = new Map(data.tasks);
      const changed = sortedKeys(data.tasks)
        .filter((task) => before.get(task) !== data.tasks.get(task))
        .map((task) => {
          const entry = data.tasks.get(task) as Entry;
          return { value: copy(entry.state), version: entry.version };
        });
      const removed = [...before.keys()].filter((task) => !data.tasks.has(task)).sort();
      return { changed, removed, cursor: cursor as unknown as TaskStateCursor };
    },
    async put(state, options) {
      checkFence(data, options.fence);
      check(state.task, options.expected);
      state.updatedAt = new Date(now()).toISOString();
      const version = options.expected + 1;
      data.tasks.set(state.task, { state: copy(state), version });
      return version;
    },
    async delete(task, options) {
      checkFence(data, options.fence);
      check(task, options.expected);
      data.tasks.delete(task);
    },
    locate: (task) => `memory:tasks/${task}`,
  };
}

export function memoryClaims(data: MemoryStoreData, now: () => number): ClaimPort {
  const index = () => {
    const map = new Map<string, string>();
    for (const [task, claim] of data.claims) for (const path of claim.paths) map.set(path, task);
    return map;
  };
  return {
    async tryClaim(taskId, paths, options) {
      checkFence(data, options?.fence);
      const held = index();
      const wanted = [...new Set(paths)];
      const conflicts: ClaimConflict[] = [];
      for (const path of wanted) {
        const holder = held.get(path);
        if (holder !== undefined && holder !== taskId) conflicts.push({ path, holder });
      }
      if (conflicts.length > 0) return { ok: false, conflicts };
      const current = data.claims.get(taskId);
      const all = [...new Set([...(current?.paths ?? []), ...wanted])].sort();
      data.claims.set(taskId, {
        paths: all,
        since: current?.since ?? new Date(now()).toISOString(),
      });
      return { ok: true, paths: [...all] };
    },
    async release(taskId, options) {
      checkFence(data, options?.fence);
      const current = data.claims.get(taskId);
      data.claims.delete(taskId);
      return current ? [...current.paths] : [];
    },
    async holderOf(path) {
      return index().get(path);
    },
    async list() {
      return sortedKeys(data.claims).map((taskId) => {
        const claim = data.claims.get(taskId) as { paths: string[]; since: string };
        return { taskId, paths: [...claim.paths], since: claim.since };
      });
    },
    async snapshot() {
      return index();
    },
  };
}
