import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { PlanSource } from '../task/parse-plan.js';

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
    try {
      const s = statSync(path, { bigint: true });
      return `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}`;
    } catch {
      return undefined;
    }
  }

  /** The cached parse of `file` when its identity is still `key`. */
  get(file: string, key: string): PlanSource | undefined {
    const hit = this.#old[file];
    if (!hit || hit.key !== key) return undefined;
    this.#next[file] = hit;
    return hit.plan;
  }

  set(file: string, key: string, plan: PlanSource): void {
    this.#next[file] = { key, plan };
    this.#dirty = true;
  }

  /** Writes the entries used by this load (dropping files that are gone) when anything changed. */
  save(): void {
    if (!this.#dirty && Object.keys(this.#next).length === Object.keys(this.#old).length) return;
    try {
      mkdirSync(dirname(this.#path), { recursive: true });
      // No fsync: a cache lost in a crash is rebuilt, and a torn one is ignored on load.
      writeFileAtomic.sync(
        this.#path,
        JSON.stringify({ version: PLAN_CACHE_VERSION, entries: this.#next }),
        { fsync: false },
      );
    } catch {
      // read-only workspace: run without a cache
    }
  }
}
