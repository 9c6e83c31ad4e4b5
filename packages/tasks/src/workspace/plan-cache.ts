import { mkdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { replaceFile, replaceFileSync } from '@switchyard/core';
import { Utf8ChunkWriter } from '@switchyard/utils';
import type { PlanSource } from '../task/parse-plan.js';
import { fileIdentity, isRacyIdentity } from './file-identity.js';

/** Bumped whenever parsing changes, so old cache entries are never used. */
export const PLAN_CACHE_VERSION = 3;

interface CacheFile {
  version: number;
  entries: Record<string, { key: string; plan: PlanSource }>;
}

interface KeysFile {
  version: number;
  keys: Record<string, string>;
}

/**
 * Parsed PLAN sources keyed by file identity (size, mtime, ctime, inode), kept in
 * `<stateDir>/cache/plans.json`. Only the file-system-independent part is cached: write-set
 * paths are checked against the workspace on every load. The cache is an optimization;
 * an unreadable or unwritable cache is ignored.
 *
 * `plan-keys.json` next to it repeats just the identities, small enough to read before the
 * big file so threads can start checking plans at once. It is only a hint: a hit is always
 * confirmed against the entry's own key in `plans.json` (so the two files being from
 * different runs, e.g. after a crash between their writes, costs a re-parse, never a stale
 * plan).
 */
export class PlanCache {
  readonly #path: string;
  #old: CacheFile['entries'] = {};
  #loaded = false;
  readonly #next: CacheFile['entries'] = {};
  // Encoded entries (`"file":{"key":…,"plan":…}`) of plans parsed elsewhere (worker threads),
  // built when they arrive so that saving only joins them; their JSON is not re-encoded.
  readonly #encoded = new Map<string, string>();
  #dirty = false;
  readonly #now: () => number;

  /**
   * Reads the cache file now, or only on {@link load} with `deferLoad`. `now` is the clock the
   * recent-change rule compares file times with (tests pass their own).
   */
  constructor(stateDir: string, options: { deferLoad?: boolean; now?: () => number } = {}) {
    this.#path = join(stateDir, 'cache', 'plans.json');
    this.#now = options.now ?? Date.now;
    if (!options.deferLoad) this.load();
  }

  /** Reads `plans.json` (once); until then every lookup misses. */
  load(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    try {
      const file = JSON.parse(readFileSync(this.#path, 'utf8')) as CacheFile;
      if (file.version === PLAN_CACHE_VERSION && file.entries) this.#old = file.entries;
    } catch {
      // no cache yet, or unreadable: start empty
    }
  }

  /** The identities in `plan-keys.json`, by task folder and file name (empty when absent). */
  static readKeysByFolder(stateDir: string): Map<string, Record<string, string>> {
    let keys: Record<string, string> = {};
    try {
      const file = JSON.parse(readFileSync(keysPath(stateDir), 'utf8')) as KeysFile;
      if (file.version === PLAN_CACHE_VERSION && file.keys) keys = file.keys;
    } catch {
      // no keys file: every plan is checked against plans.json on the main thread
    }
    return byFolder(keys);
  }

  /** The identity of a file now, or undefined when it cannot be stat'ed. */
  static keyOf(path: string): string | undefined {
    return fileIdentity(path);
  }

  /** True when the cache file held no usable entry (every plan must be parsed). */
  get empty(): boolean {
    for (const _ in this.#old) return false;
    return true;
  }

  /** The cached parse of `file` when its identity is still `key`. */
  get(file: string, key: string): PlanSource | undefined {
    const hit = this.#old[file];
    if (!hit || hit.key !== key) return undefined;
    this.#next[file] = hit;
    return hit.plan;
  }

  /**
   * Stores the parse of `file` at identity `key`; `json` is `plan` already encoded, if known.
   * A file changed in the last moments is not stored (see isRacyIdentity): it is parsed again
   * next time rather than risk a stale entry that would stay.
   */
  set(file: string, key: string, plan: PlanSource, json?: string): void {
    this.#dirty = true;
    if (isRacyIdentity(key, this.#now())) {
      delete this.#next[file];
      this.#encoded.delete(file);
      return;
    }
    this.#next[file] = { key, plan };
    if (json !== undefined) this.#encoded.set(file, encodeEntry(file, key, json));
    else this.#encoded.delete(file);
  }

  /** Writes the entries used by this load (dropping files that are gone) when anything changed. */
  save(): void {
    if (!this.#changed()) return;
    try {
      mkdirSync(dirname(this.#path), { recursive: true, mode: 0o700 });
      // No fsync: a cache lost in a crash is rebuilt, and a torn one is ignored on load.
      replaceFileSync(this.#path, this.#encode());
      replaceFileSync(this.#keysPath(), this.#encodeKeys());
    } catch {
      // read-only workspace: run without a cache
    }
  }

  /**
   * {@link save}, once the cache folder exists (made off this thread), so a caller can print
   * its results meanwhile. Same atomic write (temporary file, rename); never rejects. A crash
   * between the two leaves the temporary file, never a torn cache.
   */
  async saveAsync(): Promise<void> {
    if (!this.#changed()) return;
    try {
      await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      await replaceFile(this.#path, this.#encode(), { durable: false });
      await replaceFile(this.#keysPath(), this.#encodeKeys(), { durable: false });
    } catch {
      // read-only workspace: run without a cache
    }
  }

  #changed(): boolean {
    return this.#dirty || Object.keys(this.#next).length !== Object.keys(this.#old).length;
  }

  #keysPath(): string {
    return join(dirname(this.#path), 'plan-keys.json');
  }

  #encodeKeys(): string {
    const keys: Record<string, string> = {};
    for (const file in this.#next)
      keys[file] = (this.#next[file] as CacheFile['entries'][string]).key;
    return JSON.stringify({ version: PLAN_CACHE_VERSION, keys });
  }

  // The same bytes as JSON.stringify({ version, entries }), reusing entries' known JSON,
  // encoded entry by entry (see encodeJsonChunks: one big string of them is slow).
  #encode(): Buffer {
    const chunks: Buffer[] = [];
    const out = new Utf8ChunkWriter((chunk) => chunks.push(chunk));
    out.push(`{"version":${PLAN_CACHE_VERSION},"entries":{`);
    let first = true;
    for (const file in this.#next) {
      const entry = this.#next[file] as CacheFile['entries'][string];
      out.push(first ? '' : ',');
      out.push(this.#encoded.get(file) ?? encodeEntry(file, entry.key, JSON.stringify(entry.plan)));
      first = false;
    }
    out.push('}}');
    out.flush();
    return Buffer.concat(chunks);
  }
}

const keysPath = (stateDir: string) => join(stateDir, 'cache', 'plan-keys.json');

// file -> key, grouped by folder (`agent-task/g/t`) and file name (`PLAN.md`).
function byFolder(keys: Record<string, string>): Map<string, Record<string, string>> {
  const folders = new Map<string, Record<string, string>>();
  for (const file in keys) {
    const slash = file.lastIndexOf('/');
    const folder = file.slice(0, slash);
    let names = folders.get(folder);
    if (!names) {
      names = {};
      folders.set(folder, names);
    }
    names[file.slice(slash + 1)] = keys[file] as string;
  }
  return folders;
}

const encodeEntry = (file: string, key: string, planJson: string) =>
  `${JSON.stringify(file)}:{"key":${JSON.stringify(key)},"plan":${planJson}}`;
