import { chmod, copyFile, lstat, mkdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SourceSnapshot } from '@switchyard/core';
import { execa } from 'execa';
import { git, nulList } from './git.js';
import type { Repository } from './repository.js';

type Entry = SourceSnapshot['entries'][string];
/** What a file and its index entry are put back to. */
interface Target {
  file: { absent: true } | { link: string } | { blob: string; mode: number } | undefined;
  index: { mode: string; blob: string } | undefined;
}

/** One path put back (or not), repository-relative. */
export interface Restored {
  path: string;
  restored: boolean;
  kept?: string;
  why?: string;
}

/**
 * Puts `paths` (repository-relative) back as `before` had them: a file the snapshot did not
 * list was clean, so it goes back to HEAD's version (or away, when HEAD has none); a listed
 * one gets its recorded content, link or absence and its staged entry. The version found is
 * first copied under `keepDir`, so nothing is lost if the change was not the agent's after all.
 * The caller holds the repository's apply turn (the index is written).
 */
export async function restoreSource(
  repo: Repository,
  before: SourceSnapshot,
  paths: readonly string[],
  keepDir: string,
): Promise<Restored[]> {
  const fromHead = await headEntries(
    repo,
    paths.filter((p) => needsHead(before.entries[p])),
  );
  const results: Restored[] = [];
  const indexLines: string[] = [];
  for (const path of paths) {
    const kept = await keepCopy(repo, path, keepDir);
    const target = targetOf(before.entries[path], fromHead.get(path));
    if (!target.file) {
      results.push({
        path,
        restored: false,
        ...kept,
        why: 'too large (or unreadable) to have kept a copy',
      });
      continue;
    }
    await putFile(repo, path, target.file);
    indexLines.push(
      target.index
        ? `${target.index.mode} ${target.index.blob}\t${path}\0`
        : `0 ${'0'.repeat(before.head?.length ?? 40)}\t${path}\0`,
    );
    results.push({ path, restored: true, ...kept });
  }
  if (indexLines.length > 0)
    await git(repo.root, ['update-index', '-z', '--index-info'], { input: indexLines.join('') });
  return results;
}

/** A clean file, an untracked one and a file whose index matched HEAD take HEAD's entry. */
const needsHead = (entry: Entry | undefined): boolean =>
  entry === undefined || entry.status[0] === '.';

function targetOf(
  entry: Entry | undefined,
  head: { mode: string; blob: string } | undefined,
): Target {
  const headFile = (): Target['file'] =>
    !head
      ? { absent: true }
      : head.mode === '120000'
        ? { blob: head.blob, mode: -1 }
        : { blob: head.blob, mode: head.mode === '100755' ? 0o755 : 0o644 };
  if (!entry) return { file: headFile(), index: head };
  const file: Target['file'] = entry.absent
    ? { absent: true }
    : entry.link !== undefined
      ? { link: entry.link }
      : entry.blob
        ? { blob: entry.blob, mode: entry.mode ?? 0o644 }
        : undefined;
  const x = entry.status[0];
  const index = x === '?' || x === 'D' ? undefined : x === '.' ? head : entry.index;
  return { file, index };
}

/** HEAD's mode and blob of each of `paths` that HEAD has. */
async function headEntries(
  repo: Repository,
  paths: readonly string[],
): Promise<Map<string, { mode: string; blob: string }>> {
  const found = new Map<string, { mode: string; blob: string }>();
  if (paths.length === 0) return found;
  const listed = await git(repo.root, ['ls-tree', '-z', '--full-tree', 'HEAD', '--', ...paths], {
    allow: [128], // no commit yet: HEAD has nothing
  });
  for (const line of nulList(listed)) {
    const tab = line.indexOf('\t');
    const [mode = '', , blob = ''] = line.slice(0, tab).split(' ');
    found.set(line.slice(tab + 1), { mode, blob });
  }
  return found;
}

/** Copies what is at `path` now into `keepDir` (same relative path). */
async function keepCopy(
  repo: Repository,
  path: string,
  keepDir: string,
): Promise<{ kept?: string }> {
  const from = join(repo.root, path);
  const stats = await lstat(from).catch(() => undefined);
  if (!stats || !(stats.isFile() || stats.isSymbolicLink())) return {};
  const to = join(keepDir, path);
  await mkdir(dirname(to), { recursive: true, mode: 0o700 });
  await rm(to, { force: true });
  if (stats.isSymbolicLink()) await symlink(await readlink(from), to);
  else await copyFile(from, to);
  return { kept: to };
}

/** Writes the file as the target says (a blob's bytes, a link, or nothing). */
async function putFile(repo: Repository, path: string, file: NonNullable<Target['file']>) {
  const at = join(repo.root, path);
  await rm(at, { force: true, recursive: true });
  if ('absent' in file) return;
  await mkdir(dirname(at), { recursive: true });
  if ('link' in file) return symlink(file.link, at);
  const bytes = await blobBytes(repo, file.blob);
  if (file.mode === -1) return symlink(bytes.toString('utf8'), at);
  await writeFile(at, bytes);
  await chmod(at, file.mode);
}

/** A blob's raw bytes. */
async function blobBytes(repo: Repository, blob: string): Promise<Buffer> {
  const result = await execa('git', ['cat-file', 'blob', blob], {
    cwd: repo.root,
    encoding: 'buffer',
    stripFinalNewline: false,
    stdin: 'ignore',
    env: { LC_ALL: 'C' },
  });
  return Buffer.from(result.stdout);
}
