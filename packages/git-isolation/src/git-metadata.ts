import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from './git.js';
import type { Repository } from './repository.js';

/**
 * What git reads from outside the work tree that could make it run a command or hide a file:
 * the repository's config (`core.hooksPath`, `core.fsmonitor`, filters, includes…), the
 * worktree's own `config.worktree`, the hooks and `info/` (exclude, attributes). Entry name →
 * a hash of its content. Agents work inside a worktree whose `.git` file leads to all of it,
 * so the fingerprint taken when the worktree is created is compared on every write-set check.
 */
export type MetadataFingerprint = Record<string, string>;

/**
 * Config keys ordinary git use changes while tasks run (`push -u`, `remote add`, `fetch`,
 * identity): bookkeeping that makes git run nothing, so a change there is no agent's doing.
 */
const BOOKKEEPING =
  /^(?:branch\.[^\n]*\.(?:remote|merge|rebase|pushremote)|remote\.[^\n]*\.(?:url|pushurl|fetch|push|tagopt|prune)|user\.[^.]+)$/;

const hash = (data: string | Buffer): string =>
  createHash('sha256').update(data).digest('hex').slice(0, 16);

/** How entries of a worktree's own `config.worktree` are named. */
export const WORKTREE_CONFIG_LABEL = 'the worktree’s config.worktree';

/** The fingerprint of `repo`'s metadata; `worktreeGitDir` adds that worktree's `config.worktree`. */
export async function metadataFingerprint(
  repo: Repository,
  worktreeGitDir?: string,
): Promise<MetadataFingerprint> {
  const entries: MetadataFingerprint = {};
  const configs: [string, string][] = [
    ['.git/config', join(repo.commonDir, 'config')],
    ['.git/config.worktree', join(repo.commonDir, 'config.worktree')],
  ];
  if (worktreeGitDir)
    configs.push([WORKTREE_CONFIG_LABEL, join(worktreeGitDir, 'config.worktree')]);
  for (const [label, file] of configs) Object.assign(entries, await configEntries(label, file));
  for (const name of await listFiles(join(repo.commonDir, 'hooks'))) {
    if (name.endsWith('.sample')) continue;
    entries[`.git/hooks/${name}`] = await hookHash(join(repo.commonDir, 'hooks', name));
  }
  for (const name of ['exclude', 'attributes']) {
    const content = await readFile(join(repo.commonDir, 'info', name)).catch(() => undefined);
    if (content !== undefined) entries[`.git/info/${name}`] = hash(content);
  }
  return entries;
}

/**
 * A config file's keys (`git config --file`: reads that file only, follows no include and
 * runs nothing), each with the hash of its values; bookkeeping keys left out.
 */
export async function configEntries(label: string, file: string): Promise<MetadataFingerprint> {
  const values = await configValues(file);
  if (values === undefined) return {};
  if (values === 'unreadable') {
    const content = await readFile(file).catch(() => Buffer.alloc(0));
    return { [`${label} (unreadable)`]: hash(content) };
  }
  const entries: MetadataFingerprint = {};
  for (const [key, list] of values)
    if (!BOOKKEEPING.test(key)) entries[`${label}: ${key}`] = configHash(list);
  return entries;
}

/** The hash a config key's values get in a fingerprint. */
export const configHash = (values: readonly string[]): string => hash(values.join('\0'));

/**
 * Every key of a config file with its values in file order (`git config --file --list`);
 * undefined when the file does not exist, `unreadable` when git cannot parse it (git refuses
 * to work with it, so that is a change in itself).
 */
export async function configValues(
  file: string,
): Promise<Map<string, string[]> | 'unreadable' | undefined> {
  if (!existsSync(file)) return undefined;
  const listed = await git(join(file, '..'), ['config', '--file', file, '--list', '-z'], {
    allow: [1, 128],
  });
  if (listed.exitCode !== 0) return existsSync(file) ? 'unreadable' : undefined;
  const values = new Map<string, string[]>();
  for (const item of listed.stdout.split('\0')) {
    if (item === '') continue;
    const cut = item.indexOf('\n');
    const key = cut < 0 ? item : item.slice(0, cut);
    values.set(key, [...(values.get(key) ?? []), cut < 0 ? '' : item.slice(cut + 1)]);
  }
  return values;
}

/** The fingerprint hash of a hook: its executable bit and content (`mode`: the bits it has). */
export async function hookHash(file: string, mode?: number): Promise<string> {
  const bits =
    mode ??
    (await stat(file).then(
      (s) => s.mode,
      () => undefined,
    ));
  const flag = bits === undefined ? 'dangling' : bits & 0o111 ? 'x' : '-';
  const content = await readFile(file).catch(() => Buffer.alloc(0));
  return hash(Buffer.concat([Buffer.from(flag), content]));
}

/** The fingerprint hash of an `info/` file's content. */
export const contentHash = (content: Buffer): string => hash(content);

async function listFiles(dir: string): Promise<string[]> {
  const found = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return found
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => e.name)
    .sort();
}

/** The entries that differ between the fingerprint at creation and now, sorted. */
export function changedEntries(before: MetadataFingerprint, now: MetadataFingerprint): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(now)])]
    .filter((name) => before[name] !== now[name])
    .sort();
}

/** What differs between the fingerprint at creation and now, one line per entry. */
export function metadataChanges(before: MetadataFingerprint, now: MetadataFingerprint): string[] {
  return changedEntries(before, now).map(
    (name) =>
      `${name} (${before[name] === undefined ? 'added' : now[name] === undefined ? 'removed' : 'changed'})`,
  );
}
