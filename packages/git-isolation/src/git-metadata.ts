import { createHash } from 'node:crypto';
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
    configs.push(['the worktree’s config.worktree', join(worktreeGitDir, 'config.worktree')]);
  for (const [label, file] of configs) Object.assign(entries, await configEntries(label, file));
  for (const name of await listFiles(join(repo.commonDir, 'hooks'))) {
    if (name.endsWith('.sample')) continue;
    const file = join(repo.commonDir, 'hooks', name);
    const mode = await stat(file).then(
      (s) => (s.mode & 0o111 ? 'x' : '-'),
      () => 'dangling',
    );
    const content = await readFile(file).catch(() => Buffer.alloc(0));
    entries[`.git/hooks/${name}`] = hash(Buffer.concat([Buffer.from(mode), content]));
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
async function configEntries(label: string, file: string): Promise<MetadataFingerprint> {
  const content = await readFile(file).catch(() => undefined);
  if (content === undefined) return {};
  const listed = await git(join(file, '..'), ['config', '--file', file, '--list', '-z'], {
    allow: [128],
  });
  // A file git cannot parse is a change in itself (git refuses to work with it).
  if (listed.exitCode !== 0) return { [`${label} (unreadable)`]: hash(content) };
  const values = new Map<string, string[]>();
  for (const item of listed.stdout.split('\0')) {
    if (item === '') continue;
    const cut = item.indexOf('\n');
    const key = cut < 0 ? item : item.slice(0, cut);
    if (BOOKKEEPING.test(key)) continue;
    values.set(key, [...(values.get(key) ?? []), cut < 0 ? '' : item.slice(cut + 1)]);
  }
  const entries: MetadataFingerprint = {};
  for (const [key, list] of values) entries[`${label}: ${key}`] = hash(list.join('\0'));
  return entries;
}

async function listFiles(dir: string): Promise<string[]> {
  const found = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return found
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => e.name)
    .sort();
}

/** What differs between the fingerprint at creation and now, one line per entry. */
export function metadataChanges(before: MetadataFingerprint, now: MetadataFingerprint): string[] {
  const changes: string[] = [];
  for (const name of new Set([...Object.keys(before), ...Object.keys(now)]))
    if (before[name] !== now[name])
      changes.push(
        `${name} (${before[name] === undefined ? 'added' : now[name] === undefined ? 'removed' : 'changed'})`,
      );
  return changes.sort();
}
