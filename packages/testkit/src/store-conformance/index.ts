import { crashCase } from './crash-case.js';
import { logCases } from './log-cases.js';
import { ownershipCases } from './ownership-cases.js';
import { recordCases } from './record-cases.js';
import { resetCases } from './reset-cases.js';
import type { ConformanceRunner, StoreAdapter } from './types.js';

export type { ChildOpener, ConformanceRunner, StoreAdapter, StoreLocation } from './types.js';

/**
 * Registers the store conformance suite for one store implementation with a test runner
 * (`describeStoreConformance({ describe, it }, adapter)` in a vitest file). Every store behind
 * the core ports must pass it: compare-and-set conflicts, lease expiry and steal, fencing of
 * every write, claim races, event order and replay, when a read says the log was reset,
 * records read back as written, and (for durable stores) a holder process killed mid-work.
 */
export function describeStoreConformance(t: ConformanceRunner, adapter: StoreAdapter): void {
  t.describe(`store conformance: ${adapter.name}`, () => {
    ownershipCases(t, adapter);
    logCases(t, adapter);
    resetCases(t, adapter);
    recordCases(t, adapter);
    if (adapter.durable) crashCase(t, adapter);
  });
}
