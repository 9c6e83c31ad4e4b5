import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MetadataFingerprint } from './git-metadata.js';
import type { Repository } from './repository.js';

/**
 * A copy of what a fingerprint hashes (config files, hooks, `info/`), kept so a refused change
 * can be undone: `<state>/isolation/metadata/<fingerprint id>/`, one per distinct fingerprint
 * (tasks created from the same repository state share it), written once and never changed.
 * Each copy is mode 0600 (a hook copy is never runnable); the manifest keeps the hooks' modes.
 */
export interface SnapshotManifest {
  /** Entry file (`config`, `hooks/pre-commit`, `info/exclude`…) → its mode bits. */
  files: Record<string, number>;
}

/** The files of the common git dir a fingerprint covers, by their name in a snapshot. */
export function metadataFiles(repo: Repository, hooks: readonly string[]): Record<string, string> {
  const files: Record<string, string> = {
    config: join(repo.commonDir, 'config'),
    'config.worktree': join(repo.commonDir, 'config.worktree'),
    'info/exclude': join(repo.commonDir, 'info', 'exclude'),
    'info/attributes': join(repo.commonDir, 'info', 'attributes'),
  };
  for (const name of hooks) files[`hooks/${name}`] = join(repo.commonDir, 'hooks', name);
  return files;
}

/** The snapshot folder of a fingerprint: a hash of its entries, sorted. */
export function snapshotDir(metadataDir: string, fingerprint: MetadataFingerprint): string {
  const canonical = Object.keys(fingerprint)
    .sort()
    .map((k) => `${k}\0${fingerprint[k]}`)
    .join('\n');
  return join(metadataDir, createHash('sha256').update(canonical).digest('hex').slice(0, 24));
}

/**
 * Copies the metadata files of `fingerprint`'s repository state, once: an existing snapshot
 * is kept (same fingerprint, same content). Written to a temporary folder and renamed, so a
 * crash or a second dispatcher never leaves half a snapshot under the final name.
 */
export async function saveMetadataSnapshot(
  metadataDir: string,
  repo: Repository,
  fingerprint: MetadataFingerprint,
): Promise<void> {
  const dir = snapshotDir(metadataDir, fingerprint);
  if (existsSync(dir)) return;
  const hooks = Object.keys(fingerprint)
    .filter((k) => k.startsWith('.git/hooks/'))
    .map((k) => k.slice('.git/hooks/'.length));
  const temp = `${dir}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await mkdir(join(temp, 'hooks'), { recursive: true, mode: 0o700 });
  await mkdir(join(temp, 'info'), { recursive: true, mode: 0o700 });
  const manifest: SnapshotManifest = { files: {} };
  for (const [name, file] of Object.entries(metadataFiles(repo, hooks))) {
    const mode = await stat(file).then(
      (s) => s.mode & 0o777,
      () => undefined,
    );
    if (mode === undefined) continue;
    await copyFile(file, join(temp, name)).catch(() => undefined);
    if (!existsSync(join(temp, name))) continue;
    await chmod(join(temp, name), 0o600);
    manifest.files[name] = mode;
  }
  await writeFile(join(temp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temp, dir).catch(async (error: NodeJS.ErrnoException) => {
    // Another process saved the same snapshot first: theirs is as good as ours.
    await rm(temp, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  });
}

/** A saved snapshot, or undefined when there is none (a record from before snapshots). */
export async function readSnapshot(
  metadataDir: string,
  fingerprint: MetadataFingerprint,
): Promise<{ dir: string; manifest: SnapshotManifest } | undefined> {
  const dir = snapshotDir(metadataDir, fingerprint);
  try {
    const manifest = JSON.parse(
      await readFile(join(dir, 'manifest.json'), 'utf8'),
    ) as SnapshotManifest;
    return { dir, manifest };
  } catch {
    return undefined;
  }
}
