import assert from 'node:assert/strict';
import type { Store } from '@switchyard/core';
import type { StoreAdapter, StoreLocation } from './types.js';

/** A clock the test moves by hand (leases expire by it, never by the wall clock). */
export class FakeClock {
  #ms = Date.parse('2026-12-01T10:00:00.000Z');
  readonly now = (): number => this.#ms;
  advance(ms: number): void {
    this.#ms += ms;
  }
}

/** Two holders on one fresh location, sharing a fake clock; everything closed afterwards. */
export async function withStores(
  adapter: StoreAdapter,
  body: (stores: {
    a: Store;
    b: Store;
    clock: FakeClock;
    location: StoreLocation;
  }) => Promise<void>,
): Promise<void> {
  const location = await adapter.create();
  const clock = new FakeClock();
  const a = await location.open({ now: clock.now });
  const b = await location.open({ now: clock.now });
  try {
    await body({ a, b, clock, location });
  } finally {
    await a.close();
    await b.close();
    await location.dispose?.();
  }
}

/** Asserts that a promise rejects with a switchyard error of `code`. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.equal((error as { code?: unknown }).code, code, String(error));
    return true;
  });
}
