import type {
  ClaimPort,
  IsolationPort,
  LeasePort,
  SessionPort,
  TaskStatePort,
} from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core/dry-run';

/**
 * Each method of a port marked as a read or a write. Typed against the port: a method added to
 * a port does not compile here until it is classified, and at run time anything not marked a
 * read is refused, so a new write cannot reach a reader unrefused.
 */
export type MethodKinds<P> = { readonly [K in keyof P]-?: 'read' | 'write' };

export const TASK_STATE_METHODS: MethodKinds<TaskStatePort> = {
  get: 'read',
  list: 'read',
  put: 'write',
  delete: 'write',
  locate: 'read',
  changes: 'read',
};

export const LEASE_METHODS: MethodKinds<LeasePort> = {
  acquire: 'write',
  renew: 'write',
  release: 'write',
  get: 'read',
  list: 'read',
};

export const CLAIM_METHODS: MethodKinds<ClaimPort> = {
  tryClaim: 'write',
  release: 'write',
  holderOf: 'read',
  list: 'read',
  snapshot: 'read',
};

export const SESSION_METHODS: MethodKinds<SessionPort> = {
  create: 'write',
  putStatus: 'write',
  getPlan: 'read',
  getStatus: 'read',
  ids: 'read',
  appendEvent: 'write',
  readEvents: 'read',
  putMonitor: 'write',
  getMonitor: 'read',
  locate: 'read',
};

export const ISOLATION_METHODS: MethodKinds<IsolationPort> = {
  getRecord: 'read',
  putRecord: 'write',
  removeRecord: 'write',
  recordTasks: 'read',
  getJournal: 'read',
  putJournal: 'write',
  removeJournal: 'write',
  journalTasks: 'read',
};

export const refusal = (what: string) => () =>
  Promise.reject(
    new SwitchyardError('SY_INTERNAL', `A store opened for reading was asked to write (${what}).`),
  );

/**
 * The port with every function member that `kinds` does not mark as a read replaced by a
 * refusal: the writes, and any member the port object has beyond its interface.
 */
export function readOnly<P extends object>(port: P, name: string, kinds: MethodKinds<P>): P {
  const isRead = (key: string) =>
    Object.hasOwn(kinds, key) && (kinds as Record<string, string>)[key] === 'read';
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(port)) {
    out[key] = typeof member === 'function' && !isRead(key) ? refusal(`${name}.${key}`) : member;
  }
  return out as P;
}
