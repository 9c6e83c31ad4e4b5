import { chmod, copyFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from './git.js';
import {
  changedEntries,
  configEntries,
  configValues,
  contentHash,
  hookHash,
  type MetadataFingerprint,
  metadataFingerprint,
  WORKTREE_CONFIG_LABEL,
} from './git-metadata.js';
import { readSnapshot, type SnapshotManifest } from './metadata-snapshot.js';
import type { Repository } from './repository.js';

/** What a restore did: entries put back as they were, and entries it could not restore. */
export interface MetadataRestore {
  restored: string[];
  kept: string[];
}

/** A config file a fingerprint covers: its label in entry names, path, and snapshot name. */
interface ConfigFile {
  label: string;
  file: string;
  /** Its copy's name in a snapshot; none for a worktree's own config (absent at creation). */
  saved?: string;
}

/**
 * Puts the repository's config keys, hooks and `info/` files an agent changed back to the
 * fingerprint taken when its worktree was created, from the snapshot saved then: a changed
 * config key gets its old values (an added one is removed), a hook or `info/` file its old
 * content and mode (an added one is deleted). A snapshot copy is used only where it still
 * hashes to the fingerprint (a copy changed since is never written into `.git`); what cannot
 * be restored that way is returned as `kept`. Nothing here runs git on the worktree: config
 * files are read and written with `git config --file`, which follows no include and runs
 * nothing.
 */
export async function restoreMetadata(
  repo: Repository,
  metadataDir: string,
  before: MetadataFingerprint,
  worktreeGitDir: string | undefined,
): Promise<MetadataRestore> {
  const changed = changedEntries(before, await metadataFingerprint(repo, worktreeGitDir));
  if (changed.length === 0) return { restored: [], kept: [] };
  const snapshot = await readSnapshot(metadataDir, before);
  const configs: ConfigFile[] = [
    { label: '.git/config', file: join(repo.commonDir, 'config'), saved: 'config' },
    {
      label: '.git/config.worktree',
      file: join(repo.commonDir, 'config.worktree'),
      saved: 'config.worktree',
    },
    ...(worktreeGitDir
      ? [{ label: WORKTREE_CONFIG_LABEL, file: join(worktreeGitDir, 'config.worktree') }]
      : []),
  ];
  const savedPath = (name: string | undefined) =>
    name !== undefined && snapshot?.manifest.files[name] !== undefined
      ? join(snapshot.dir, name)
      : undefined;
  for (const config of configs) {
    const entries = changed.filter((e) => labelOf(e) === config.label);
    if (entries.length === 0) continue;
    const copy = savedPath(config.saved);
    // The old values come from a copy only when it still hashes to the fingerprint; an added
    // key needs none (it is removed).
    const known =
      (config.saved === undefined || snapshot !== undefined) &&
      (await trustedConfig(config.label, copy, before));
    await restoreConfig(config, known ? { copy } : undefined, entries, before);
  }
  for (const entry of changed) {
    const file = fileOf(repo, entry);
    if (!file) continue;
    const name = entry.slice('.git/'.length);
    const copy = savedPath(name);
    if (before[entry] === undefined) await rm(file.path, { force: true });
    else if (
      snapshot &&
      copy &&
      (await file.hashOf(copy, snapshot.manifest.files[name])) === before[entry]
    )
      await putBack(copy, file.path, snapshot.manifest, name);
  }
  const left = new Set(changedEntries(before, await metadataFingerprint(repo, worktreeGitDir)));
  return {
    restored: changed.filter((e) => !left.has(e)),
    kept: changed.filter((e) => left.has(e)),
  };
}

/** A hook or `info/` file of an entry name, with the hash the fingerprint gives a copy of it
 * (a copy keeps its original mode in the manifest). */
function fileOf(
  repo: Repository,
  entry: string,
):
  | { path: string; hashOf: (copy: string, mode: number | undefined) => Promise<string> }
  | undefined {
  if (entry.startsWith('.git/hooks/'))
    return {
      path: join(repo.commonDir, 'hooks', entry.slice('.git/hooks/'.length)),
      hashOf: hookHash,
    };
  if (entry === '.git/info/exclude' || entry === '.git/info/attributes')
    return {
      path: join(repo.commonDir, entry.slice('.git/'.length)),
      hashOf: async (file) => contentHash(await readFile(file)),
    };
  return undefined;
}

/** The copy (or, without one, no file at all) gives exactly the fingerprint's keys of `label`. */
async function trustedConfig(
  label: string,
  copy: string | undefined,
  before: MetadataFingerprint,
): Promise<boolean> {
  const expected = Object.entries(before).filter(
    ([k]) => k.startsWith(`${label}: `) || k === `${label} (unreadable)`,
  );
  const saved = copy ? await configEntries(label, copy) : {};
  return (
    expected.length === Object.keys(saved).length && expected.every(([k, v]) => saved[k] === v)
  );
}

/** The config label of an entry name (`.git/config: core.bare` → `.git/config`). */
function labelOf(entry: string): string | undefined {
  if (entry.endsWith(' (unreadable)')) return entry.slice(0, -' (unreadable)'.length);
  const cut = entry.indexOf(': ');
  return cut < 0 ? undefined : entry.slice(0, cut);
}

/**
 * Restores the changed keys of one config file: `baseline` is what it held at creation (its
 * verified copy, or no copy when it did not exist), undefined when that is not known.
 */
async function restoreConfig(
  config: ConfigFile,
  baseline: { copy: string | undefined } | undefined,
  entries: readonly string[],
  before: MetadataFingerprint,
): Promise<void> {
  const { file, label } = config;
  const current = await configValues(file);
  if (current === 'unreadable' || entries.includes(`${label} (unreadable)`)) {
    // git cannot edit a file it cannot parse: the whole file goes back to its copy.
    if (!baseline) return;
    if (baseline.copy) await copyFile(baseline.copy, file);
    else await rm(file, { force: true });
    return;
  }
  const old = baseline?.copy ? await configValues(baseline.copy) : undefined;
  const oldValues = old instanceof Map ? old : new Map<string, string[]>();
  const cwd = join(file, '..');
  for (const entry of entries) {
    const added = before[entry] === undefined;
    if (!added && !baseline) continue;
    const key = entry.slice(label.length + 2);
    await git(cwd, ['config', '--file', file, '--unset-all', key], { allow: [5] });
    if (!added)
      for (const value of oldValues.get(key) ?? [])
        await git(cwd, ['config', '--file', file, '--add', key, value]);
  }
  // A file that did not exist at creation and holds no key any more goes again.
  const left = await configValues(file);
  if (baseline && !baseline.copy && left instanceof Map && left.size === 0)
    await rm(file, { force: true });
}

async function putBack(
  copy: string,
  file: string,
  manifest: SnapshotManifest,
  name: string,
): Promise<void> {
  await rm(file, { force: true });
  await copyFile(copy, file);
  await chmod(file, manifest.files[name] ?? 0o644);
}
