import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceSnapshot } from '@switchyard/core';
import { git } from './git.js';
import type { Repository } from './repository.js';

/** Larger files are not copied into the object database: a change to them is only reported. */
export const MAX_KEPT_BYTES = 16 * 1024 * 1024;
/** At most this much of the user's uncommitted files is hashed per snapshot (the rest is only
 * reported when it changes), so a checkout full of large untracked files stays cheap. */
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

type Entry = SourceSnapshot['entries'][string];

/**
 * The source checkout's changed files (`git status --porcelain=v2`: modified, staged and
 * untracked, ignored ones left out), each with its working-tree content as a blob id (written
 * to the object database with `keep`, so it can be put back), its link target or its
 * absence, and the index entry of a staged file. `exclude`: repository-relative folders the
 * dispatcher writes itself (`agent-task/`). Read-only: no optional locks, no fsmonitor.
 */
export async function sourceSnapshot(
  repo: Repository,
  exclude: readonly string[],
  keep: boolean,
): Promise<SourceSnapshot> {
  const out = await git(
    repo.root,
    [
      '--no-optional-locks',
      '-c',
      'core.fsmonitor=false',
      'status',
      '--porcelain=v2',
      '--branch',
      '-z',
      '--untracked-files=all',
      '--no-renames',
      '--ignore-submodules=all',
      '--',
      ':(top)',
      ...exclude.map((dir) => `:(top,literal,exclude)${dir}`),
    ],
    // The exclusions are pathspec magic; every other git call here takes paths literally.
    { env: { GIT_LITERAL_PATHSPECS: '0' } },
  );
  let head: string | undefined;
  const entries: Record<string, Entry> = {};
  for (const record of out.stdout.split('\0')) {
    if (record.startsWith('# branch.oid ')) {
      const oid = record.slice('# branch.oid '.length);
      if (oid !== '(initial)') head = oid;
    } else if (record.startsWith('1 ')) {
      const fields = record.split(' ');
      const [, xy = '', , , modeIndex = '', , , blobIndex = ''] = fields;
      const staged = xy[0] !== '.' && xy[0] !== 'D';
      entries[fields.slice(8).join(' ')] = {
        status: xy,
        ...(staged ? { index: { mode: modeIndex, blob: blobIndex } } : {}),
      };
    } else if (record.startsWith('u ')) {
      // An unmerged path: its stages cannot be put back; it is reported if it changes.
      const fields = record.split(' ');
      entries[fields.slice(10).join(' ')] = { status: fields[1] ?? 'UU', unkept: true };
    } else if (record.startsWith('? ')) entries[record.slice(2)] = { status: '??' };
  }
  await describeFiles(repo, entries, keep);
  return { schema: 1, ...(head ? { head } : {}), entries };
}

/** Adds what each entry's working-tree file is: absent, a link, or a blob (hashed in one call). */
async function describeFiles(
  repo: Repository,
  entries: Record<string, Entry>,
  keep: boolean,
): Promise<void> {
  const toHash: string[] = [];
  let budget = MAX_SNAPSHOT_BYTES;
  for (const [path, entry] of Object.entries(entries)) {
    if (entry.unkept) continue;
    const stats = await lstat(join(repo.root, path)).catch(() => undefined);
    if (!stats) entry.absent = true;
    else if (stats.isSymbolicLink()) entry.link = await readlink(join(repo.root, path));
    else if (
      !stats.isFile() ||
      stats.size > Math.min(MAX_KEPT_BYTES, budget) ||
      path.includes('\n')
    )
      entry.unkept = true;
    else {
      budget -= stats.size;
      entry.mode = stats.mode & 0o111 ? 0o755 : 0o644;
      toHash.push(path);
    }
  }
  if (toHash.length === 0) return;
  // Raw bytes (no filters), so that writing the blob back restores the file exactly.
  const hashed = await git(
    repo.root,
    ['hash-object', ...(keep ? ['-w'] : []), '--no-filters', '--stdin-paths'],
    { input: `${toHash.join('\n')}\n` },
  );
  const ids = hashed.stdout.split('\n');
  toHash.forEach((path, i) => {
    const entry = entries[path] as Entry;
    const id = ids[i]?.trim();
    if (id) entry.blob = id;
    else entry.unkept = true;
  });
}

/**
 * Repository-relative paths whose state differs between two snapshots: added or removed from
 * the changed files, or changed there (status, content, link, mode, staged entry). A file
 * neither snapshot lists is clean in both, whatever HEAD did meanwhile (the dispatcher's
 * applies move files from clean to clean).
 */
export function changedBetween(before: SourceSnapshot, after: SourceSnapshot): string[] {
  const paths = new Set([...Object.keys(before.entries), ...Object.keys(after.entries)]);
  const same = (a: Entry | undefined, b: Entry | undefined) =>
    a !== undefined &&
    b !== undefined &&
    a.status === b.status &&
    a.blob === b.blob &&
    a.link === b.link &&
    a.absent === b.absent &&
    a.mode === b.mode &&
    a.index?.blob === b.index?.blob &&
    a.index?.mode === b.index?.mode &&
    // Two unkept versions cannot be compared by content: counted as changed only by status.
    (a.unkept === true) === (b.unkept === true);
  return [...paths].filter((p) => !same(before.entries[p], after.entries[p])).sort();
}
