import type { ClaimRecord, RunEvent, Store, TaskState } from '@switchyard/core';
import type { EscalationEntry } from '@switchyard/store-fs';
import { openEscalations } from '../escalation/open-escalations.js';

/** The stored facts `status` and the monitor show. */
export interface StatusFacts {
  /** Every task's stored state. */
  states: TaskState[];
  claims: readonly ClaimRecord[];
  /** The whole event log, in order. */
  events: readonly RunEvent[];
  /** Open escalations, sorted by task. */
  escalations: EscalationEntry[];
}

/** The ports {@link readStatusFacts} reads. */
export type StatusStore = Pick<Store, 'tasks' | 'claims' | 'events' | 'escalations'>;

/**
 * Reads the stored facts of a status report through the store (reads only). `events: false`
 * leaves the event log out (`events` empty): a reader that follows it already, such as the
 * monitor on a shared store, does not read it whole again.
 */
export async function readStatusFacts(
  store: StatusStore,
  options: { events?: boolean } = {},
): Promise<StatusFacts> {
  const states = (await store.tasks.list()).map((stored) => stored.value);
  const [claims, page, escalations] = await Promise.all([
    store.claims.list(),
    options.events === false ? undefined : store.events.read(),
    openEscalations(store.escalations, states),
  ]);
  return { states, claims, events: page?.events.map((stored) => stored.event) ?? [], escalations };
}
