import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TargetState, TargetStatePort } from '@switchyard/core';
import { replaceFile } from '@switchyard/utils';
import type { FsLeases } from './fs-leases.js';
import { cachedJson, corrupt } from './json-file.js';
import type { Locked } from './locked.js';

interface TargetsFile {
  schema_version: 1;
  targets: Record<string, TargetState>;
}

const HINT = 'Delete targets.json: targets then start without a cool-down.';

const later = (a: string | undefined, b: string): string =>
  a !== undefined && Date.parse(a) > Date.parse(b) ? a : b;

/** Shared target cool-down/park state in `targets.json`, rewritten whole under the store lock, fsynced. */
export function fsTargets(
  file: string,
  locked: Locked,
  leases: FsLeases,
  now: () => number,
): TargetStatePort {
  const load = cachedJson(
    file,
    (raw): TargetsFile => {
      if (raw === undefined) return { schema_version: 1, targets: {} };
      const doc = raw as TargetsFile;
      if (doc?.schema_version !== 1 || typeof doc.targets !== 'object' || doc.targets === null)
        throw corrupt(file, 'not a target state file', HINT);
      return doc;
    },
    HINT,
  );
  const update = (
    target: string,
    fence: Parameters<FsLeases['check']>[0],
    patch: (old: TargetState | undefined) => Partial<TargetState>,
  ) =>
    locked(async () => {
      leases.check(fence);
      const doc = structuredClone(load());
      const old = doc.targets[target];
      const next: TargetState = {
        ...old,
        target,
        ...patch(old),
        updatedAt: new Date(now()).toISOString(),
      };
      doc.targets[target] = next;
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      await replaceFile(file, `${JSON.stringify(doc, null, 2)}\n`, { durable: true });
      return next;
    });
  return {
    get: async (target) => load().targets[target],
    list: async () => {
      const { targets } = load();
      return Object.keys(targets)
        .sort()
        .map((id) => targets[id] as TargetState);
    },
    coolDown: (target, until, reason, options) =>
      update(target, options?.fence, (old) => {
        const at = later(old?.coolDownUntil, until);
        return { coolDownUntil: at, reason: at === until ? reason : old?.reason };
      }),
    park: (target, until, options) =>
      update(target, options?.fence, (old) => ({ parkedUntil: later(old?.parkedUntil, until) })),
    clear: (target, options) =>
      locked(async () => {
        leases.check(options?.fence);
        const doc = structuredClone(load());
        if (!(target in doc.targets)) return;
        delete doc.targets[target];
        await replaceFile(file, `${JSON.stringify(doc, null, 2)}\n`, { durable: true });
      }),
  };
}
