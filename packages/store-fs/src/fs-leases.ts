import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { Fence, Lease, LeasePort, LeaseResult } from '@switchyard/core';
import { fenceHolds, leaseLost, parseLeaseHolder } from '@switchyard/core/dry-run';
import {
  type DeferredWrites,
  deferredWrites,
  isSameProcessAlive,
  replaceFile,
} from '@switchyard/utils';
import { cachedJson, corrupt } from './json-file.js';
import type { Locked } from './locked.js';

/** `leases.json`: one entry per task that ever had a lease (a released one keeps its token). */
interface LeasesFile {
  schema_version: 1;
  leases: Record<string, StoredLease>;
}

interface StoredLease {
  holder: string;
  token: number;
  acquiredAt: string;
  expiresAt: string;
  released?: true;
}

const HINT =
  'Stop every dispatcher of this workspace, then delete leases.json: each task is leased again on the next run.';

function parse(file: string, raw: unknown): LeasesFile {
  if (raw === undefined) return { schema_version: 1, leases: {} };
  const value = raw as LeasesFile;
  if (value?.schema_version !== 1 || typeof value.leases !== 'object' || value.leases === null)
    throw corrupt(file, 'not a lease file', HINT);
  return value;
}

/**
 * False only for a dispatcher on this machine whose process is gone (its holder string says
 * which): its leases are taken over at once, so a run restarted after a crash does not wait
 * for them to expire. Any other holder counts as alive until its lease expires.
 */
function mayBeAlive(holder: string): boolean {
  const who = parseLeaseHolder(holder);
  if (!who || who.host !== hostname()) return true;
  return isSameProcessAlive({ pid: who.pid, startToken: who.startToken });
}

/** How long an exclusive store's lease changes wait to share one write of `leases.json`. */
export const LEASE_WRITE_DELAY_MS = 1000;

const copy = (doc: LeasesFile): LeasesFile => ({ ...doc, leases: { ...doc.leases } });

const toLease = (task: string, s: StoredLease): Lease => ({
  task,
  holder: s.holder,
  token: s.token,
  acquiredAt: Date.parse(s.acquiredAt),
  expiresAt: Date.parse(s.expiresAt),
});

const toStored = (lease: Lease): StoredLease => ({
  holder: lease.holder,
  token: lease.token,
  acquiredAt: new Date(lease.acquiredAt).toISOString(),
  expiresAt: new Date(lease.expiresAt).toISOString(),
});

/** The leases of the store, and the fence check every task write makes against them. */
export interface FsLeases extends LeasePort {
  /** Throws `SY_LEASE_LOST` unless the fence is its task's current lease (run it under the lock). */
  check(fence: Fence | undefined): void;
}

/**
 * Leases in `leases.json`, replaced atomically under the store lock (not fsynced: after a power
 * loss every holder on this machine is dead, so a lost renewal fences nobody wrongly). Within
 * one machine the workspace lock already keeps a second dispatcher out; the leases make
 * ownership explicit per task, as a shared store needs it.
 *
 * Exclusive (the opener holds the workspace lock): the workspace lock is the grant, so the
 * leases live in this process and `leases.json` is written behind them (a deferred write on the
 * store's timers: every change within {@link LEASE_WRITE_DELAY_MS} of the first shares one
 * write, at the latest on `flush`): a lease costs no file write on the hot path. A crash may lose the last ones; the
 * next run's tokens may then repeat, which fences nobody wrongly, since the lock proves the
 * previous holder dead. No other process takes a lease meanwhile: it would need the lock.
 */
export function fsLeases(
  file: string,
  locked: Locked,
  now: () => number,
  exclusive = false,
  deferred: DeferredWrites = deferredWrites(),
): FsLeases & { flush(): Promise<void> } {
  const read = cachedJson(file, (raw) => parse(file, raw), HINT);
  let held: LeasesFile | undefined; // exclusive: the leases as this process keeps them
  let dirty = false;
  const load = (): LeasesFile => held ?? read();
  const current = (task: string): Lease | undefined => {
    const stored = load().leases[task];
    return stored && !stored.released ? toLease(task, stored) : undefined;
  };
  const save = leasesWriter(file);
  // Every change within the delay of the first shares one write of the latest document.
  const writeBehind = () => {
    dirty = true;
    deferred.defer('leases.json', LEASE_WRITE_DELAY_MS, writeHeld);
  };
  const writeHeld = async () => {
    if (!dirty || !held) return;
    dirty = false;
    await save(held).catch(() => {
      dirty = true; // retried by the next change or flush
    });
  };
  // A change replaces whole entries of `leases`, so a copy of that map keeps the document it
  // started from intact (a deep clone of every lease per change cost more than the change).
  // Exclusive: the document is this process's own, changed in place.
  const mutate = <T>(fn: (doc: LeasesFile) => { result: T; changed: boolean }) =>
    locked(async () => {
      const doc = held ?? copy(read());
      const { result, changed } = fn(doc);
      if (!changed) return result;
      if (exclusive) {
        held = doc;
        writeBehind();
      } else await save(doc);
      return result;
    });
  return {
    check(fence) {
      if (!fence) return;
      const lease = current(fence.task);
      if (!fenceHolds(fence, lease)) throw leaseLost(fence, lease);
    },
    acquire: (task, holder, ttlMs) =>
      mutate<LeaseResult>((doc) => acquireIn(doc, task, holder, ttlMs, now())),
    renew: (leases, ttlMs) => mutate((doc) => renewIn(doc, leases, ttlMs, now())),
    release: (lease) => mutate((doc) => releaseIn(doc, lease)),
    get: async (task) => current(task),
    list: async () =>
      Object.keys(load().leases)
        .sort()
        .flatMap((task) => current(task) ?? []),
    async flush() {
      await deferred.flush();
      if (dirty && held) {
        dirty = false;
        await save(held);
      }
    },
  };
}

/** Replaces the leases file (its folder made once, owner-only), not fsynced. */
function leasesWriter(file: string): (doc: LeasesFile) => Promise<void> {
  let madeDir = false;
  return async (doc) => {
    if (!madeDir) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    madeDir = true;
    await replaceFile(file, `${JSON.stringify(doc, null, 2)}\n`, { durable: false });
  };
}

/** A change of the leases document: what it returns, and whether the document changed. */
type Change<T> = { result: T; changed: boolean };

/**
 * Grants `holder` the task's lease until `at + ttlMs`: renewed when it holds it, else a new
 * token, unless another holder's lease is live (and that holder may be alive).
 */
function acquireIn(
  doc: LeasesFile,
  task: string,
  holder: string,
  ttlMs: number,
  at: number,
): Change<LeaseResult> {
  const stored = doc.leases[task];
  const live = stored && !stored.released ? toLease(task, stored) : undefined;
  if (live && live.holder !== holder && live.expiresAt > at && mayBeAlive(live.holder))
    return { result: { ok: false, held: live }, changed: false };
  const lease: Lease =
    live && live.holder === holder
      ? { ...live, expiresAt: at + ttlMs }
      : {
          task,
          holder,
          token: (stored?.token ?? 0) + 1,
          acquiredAt: at,
          expiresAt: at + ttlMs,
        };
  doc.leases[task] = toStored(lease);
  return { result: { ok: true, lease }, changed: true };
}

/** Extends each lease still held with its token to `at + ttlMs`; undefined for one lost. */
function renewIn(
  doc: LeasesFile,
  leases: readonly Lease[],
  ttlMs: number,
  at: number,
): Change<(Lease | undefined)[]> {
  const result = leases.map((lease) => {
    const stored = doc.leases[lease.task];
    if (!stored || stored.released || stored.token !== lease.token) return undefined;
    const renewed = { ...toLease(lease.task, stored), expiresAt: at + ttlMs };
    doc.leases[lease.task] = toStored(renewed);
    return renewed;
  });
  return { result, changed: result.some(Boolean) };
}

/** Marks the lease released when it is still the one stored (its token). */
function releaseIn(doc: LeasesFile, lease: Lease): Change<undefined> {
  const stored = doc.leases[lease.task];
  if (!stored || stored.released || stored.token !== lease.token)
    return { result: undefined, changed: false };
  doc.leases[lease.task] = { ...stored, released: true };
  return { result: undefined, changed: true };
}
