import { mkdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { PlanSource } from '../task/parse-plan.js';
import { fileIdentity } from './file-identity.js';

/** Bumped whenever parsing changes, so old cache entries are never used. */
export const PLAN_CACHE_VERSION = 2;

interface CacheFile {
  version: number;
  entries: Record<string, { key: string; plan: PlanSource }>;
}

/**
 * Parsed PLAN sources keyed by file identity (size, mtime, ctime, inode), kept in
 * `<stateDir>/cache/plans.json`. Only the file-system-independent part is cached: write-set
 * paths are checked against the workspace on every load. The cache is an optimization;
 * an unreadable or unwritable cache is ignored.
 */
export class PlanCache {
  readonly #path: string;
  readonly #old: CacheFile['entries'];
  readonly #next: CacheFile['entries'] = {};
  // Encoded entries (`"file":{"key":…,"plan":…}`) of plans parsed elsewhere (worker threads),
  // built when they arrive so that saving only joins them; their JSON is not re-encoded.
  readonly #encoded = new Map<string, string>();
  #dirty = false;

  constructor(stateDir: string) {
    this.#path = join(stateDir, 'cache', 'plans.json');
    let old: CacheFile['entries'] = {};
    try {
      const file = JSON.parse(readFileSync(this.#path, 'utf8')) as CacheFile;
      if (file.version === PLAN_CACHE_VERSION && file.entries) old = file.entries;
    } catch {
      // no cache yet, or unreadable: start empty
    }
    this.#old = old;
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

  /** The cached identity of each plan, by task folder (`agent-task/g/t`) and file name. */
  keysByFolder(): Map<string, Record<string, string>> {
    const folders = new Map<string, Record<string, string>>();
    for (const file in this.#old) {
      const slash = file.lastIndexOf('/');
      const folder = file.slice(0, slash);
      let keys = folders.get(folder);
      if (!keys) {
        keys = {};
        folders.set(folder, keys);
      }
      keys[file.slice(slash + 1)] = (this.#old[file] as CacheFile['entries'][string]).key;
    }
    return folders;
  }

  /** The cached parse of `file` when its identity is still `key`. */
  get(file: string, key: string): PlanSource | undefined {
    const hit = this.#old[file];
    if (!hit || hit.key !== key) return undefined;
    this.#next[file] = hit;
    return hit.plan;
  }

  /** Stores the parse of `file` at identity `key`; `json` is `plan` already encoded, if known. */
  set(file: string, key: string, plan: PlanSource, json?: string): void {
    this.#next[file] = { key, plan };
    if (json !== undefined) this.#encoded.set(file, encodeEntry(file, key, json));
    else this.#encoded.delete(file);
    this.#dirty = true;
  }

  /** Writes the entries used by this load (dropping files that are gone) when anything changed. */
  save(): void {
    if (!this.#changed()) return;
    try {
      mkdirSync(dirname(this.#path), { recursive: true });
      // No fsync: a cache lost in a crash is rebuilt, and a torn one is ignored on load.
      writeFileAtomic.sync(this.#path, this.#encode(), { fsync: false });
    } catch {
      // read-only workspace: run without a cache
    }
  }

  /**
   * {@link save}, with the file written off this thread (libuv's pool), so a caller can
   * print its results meanwhile. Same atomic write (temporary file, rename; the temporary
   * file is removed if the process exits first); never rejects.
   */
  async saveAsync(): Promise<void> {
    if (!this.#changed()) return;
    try {
      await mkdir(dirname(this.#path), { recursive: true });
      await writeFileAtomic(this.#path, Buffer.from(this.#encode()), { fsync: false });
    } catch {
      // read-only workspace: run without a cache
    }
  }

  #changed(): boolean {
    return this.#dirty || Object.keys(this.#next).length !== Object.keys(this.#old).length;
  }

  // The same text as JSON.stringify({ version, entries }), reusing entries' known JSON.
  #encode(): string {
    const parts: string[] = [];
    for (const file in this.#next) {
      const entry = this.#next[file] as CacheFile['entries'][string];
      parts.push(
        this.#encoded.get(file) ?? encodeEntry(file, entry.key, JSON.stringify(entry.plan)),
      );
    }
    return `{"version":${PLAN_CACHE_VERSION},"entries":{${parts.join(',')}}}`;
  }
}

const encodeEntry = (file: string, key: string, planJson: string) =>
  `${JSON.stringify(file)}:{"key":${JSON.stringify(key)},"plan":${planJson}}`;
