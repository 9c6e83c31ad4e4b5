import {
  keepingLastFire,
  type SchedulePort,
  type TargetState,
  type TargetStatePort,
} from '@switchyard/core';
import { copy, type MemoryStoreData, sortedKeys } from './memory-data.js';
import { checkFence } from './memory-ownership.js';

const later = (a: string | undefined, b: string): string =>
  a !== undefined && Date.parse(a) > Date.parse(b) ? a : b;

export function memorySchedules(data: MemoryStoreData): SchedulePort {
  return {
    async list() {
      return sortedKeys(data.schedules).map((id) => copy(data.schedules.get(id)!));
    },
    async put(schedule) {
      data.schedules.set(schedule.id, copy(schedule));
    },
    async remove(id) {
      return data.schedules.delete(id);
    },
    async runs() {
      return Object.fromEntries([...data.scheduleRuns].map(([id, runs]) => [id, copy(runs)]));
    },
    async putRuns(id, runs) {
      data.scheduleRuns.set(id, keepingLastFire(data.scheduleRuns.get(id), copy(runs)));
    },
    async claimFire(id, fireAt) {
      const runs = data.scheduleRuns.get(id) ?? { missed: 0, missedAt: [] };
      if (runs.lastFireAt !== undefined && Date.parse(runs.lastFireAt) >= Date.parse(fireAt))
        return false;
      data.scheduleRuns.set(id, { ...runs, lastFireAt: fireAt });
      return true;
    },
    locate: () => 'memory:schedules',
  };
}

export function memoryTargets(data: MemoryStoreData, now: () => number): TargetStatePort {
  const update = (
    target: string,
    patch: (old: TargetState | undefined) => Partial<TargetState>,
  ) => {
    const old = data.targets.get(target);
    const next: TargetState = {
      ...old,
      target,
      ...patch(old),
      updatedAt: new Date(now()).toISOString(),
    };
    data.targets.set(target, next);
    return copy(next);
  };
  return {
    async get(target) {
      return copy(data.targets.get(target));
    },
    async list() {
      return sortedKeys(data.targets).map((target) => copy(data.targets.get(target)!));
    },
    async coolDown(target, until, reason, options) {
      checkFence(data, options?.fence);
      return update(target, (old) => {
        const at = later(old?.coolDownUntil, until);
        return { coolDownUntil: at, reason: at === until ? reason : old?.reason };
      });
    },
    async park(target, until, options) {
      checkFence(data, options?.fence);
      return update(target, (old) => ({ parkedUntil: later(old?.parkedUntil, until) }));
    },
    async clear(target, options) {
      checkFence(data, options?.fence);
      data.targets.delete(target);
    },
  };
}
