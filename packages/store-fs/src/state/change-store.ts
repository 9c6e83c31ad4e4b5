import { lstatSync, type Stats, unlink } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureOwnedDir, readJsonFile, replaceFile } from '@switchyard/utils';
import { z } from 'zod';
import { snapshotEntrySchema } from './snapshot-entry.js';

/**
 * What a task's change is measured against when it works in the shared workspace (no git
 * to diff): its write-set files as they were before its first agent, and the workspace as it
 * was before its latest writing attempt. Durable facts of the task, kept until it is archived.
 */
export const changeBaselineSchema = z.object({
  schema_version: z.literal(1),
  task: z.string(),
  /** Write-set path -> the file before the task changed it. */
  files: z.record(
    z.string(),
    z.object({
      exists: z.boolean(),
      sha256: z.string().optional(),
      /** The text, when the file was a UTF-8 file small enough to keep. */
      text: z.string().optional(),
    }),
  ),
});
export type ChangeBaseline = z.infer<typeof changeBaselineSchema>;

/** The workspace before a task's writing attempt (worker, fixup), for the write-set check. */
export const roundSnapshotSchema = z.object({
  schema_version: z.literal(1),
  task: z.string(),
  /** The attempt (or stage) it was taken before. */
  before: z.string(),
  at: z.string(),
  /** The run that took it: a round of an earlier run starts over (wall clocks may step). */
  run: z.string().optional(),
  files: z.record(z.string(), snapshotEntrySchema),
});
export type RoundSnapshot = z.infer<typeof roundSnapshotSchema>;

/** Reads and replaces the change facts of shared-workspace tasks, under `<stateDir>/changes/`. */
export interface ChangeStore {
  readBaseline(task: string): ChangeBaseline | undefined;
  writeBaseline(baseline: ChangeBaseline): Promise<void>;
  readRound(task: string): RoundSnapshot | undefined;
  writeRound(round: RoundSnapshot): Promise<void>;
  /** Closes the task's round (its writes were checked). */
  removeRound(task: string): Promise<void>;
  /** Forgets the task's facts (after its verified archive). */
  remove(task: string): Promise<void>;
}

const HINT =
  'delete the file (the next attempt of the task records it again; its change is then measured from there)';

/** Options of {@link openChangeStore}. */
export interface ChangeStoreOptions {
  /**
   * Most rounds kept in memory to read back without parsing their file again (default
   * {@link KEPT_ROUNDS}): at least the writing attempts that may run at once.
   */
  keptRounds?: number;
}

/** Default of {@link ChangeStoreOptions.keptRounds}. */
export const KEPT_ROUNDS = 16;

export function openChangeStore(stateDir: string, options: ChangeStoreOptions = {}): ChangeStore {
  const root = join(stateDir, 'changes');
  const writtenRounds = keptRounds(Math.max(1, options.keptRounds ?? KEPT_ROUNDS));
  const fileOf = (task: string, kind: 'baseline' | 'round') => join(root, `${task}.${kind}.json`);
  const write = async (file: string, value: unknown) => {
    ensureOwnedDir(stateDir, dirname(file));
    await replaceFile(file, `${JSON.stringify(value)}\n`, { durable: false });
  };
  return {
    readBaseline: (task) =>
      readJsonFile(fileOf(task, 'baseline'), changeBaselineSchema, {
        what: 'change baseline',
        hint: HINT,
      }),
    writeBaseline: (baseline) => write(fileOf(baseline.task, 'baseline'), baseline),
    readRound(task) {
      const file = fileOf(task, 'round');
      const kept = writtenRounds.take(file);
      if (kept && sameFile(lstatSync(file, { throwIfNoEntry: false }), kept)) {
        writtenRounds.set(file, kept); // read back at the end of each attempt it serves
        return kept.round;
      }
      return readJsonFile(file, roundSnapshotSchema, { what: 'workspace snapshot', hint: HINT });
    },
    async writeRound(round) {
      const file = fileOf(round.task, 'round');
      writtenRounds.delete(file);
      await write(file, round);
      const stat = lstatSync(file, { throwIfNoEntry: false });
      if (stat) writtenRounds.set(file, { round, ...identityOf(stat) });
    },
    removeRound(task) {
      writtenRounds.delete(fileOf(task, 'round'));
      return removeIfPresent(fileOf(task, 'round'));
    },
    async remove(task) {
      writtenRounds.delete(fileOf(task, 'round'));
      await removeIfPresent(fileOf(task, 'baseline'));
      await removeIfPresent(fileOf(task, 'round'));
    },
  };
}

/**
 * The rounds this store wrote, by file, with the file's identity right after the write. A
 * round holds a snapshot of the whole workspace, and it is read back when its attempt ends:
 * while the file is still the one written (same inode, size, modification and change time;
 * an atomic replacement always gives a new inode, and no process can set a change time
 * back), the round written is returned instead of parsing the file again. Rounds are never
 * changed in place: callers only read what they get.
 *
 * Only the `limit` rounds written or read back last are kept. Rounds that stay open (an
 * attempt failed, its task blocked or was stopped) would otherwise each pin a snapshot for
 * as long as the store lives; the rounds of the attempts in flight are the ones written or
 * read last, so they stay and the gain (no parse when a writing attempt ends) is kept. Not a
 * WeakRef: the writer drops its round at once and the next walk of the workspace replaces the
 * snapshot, so whether a round survived to its attempt's end would be up to the collector.
 */
function keptRounds(limit: number) {
  const rounds = new Map<string, KeptRound>(); // oldest first
  return {
    take(file: string): KeptRound | undefined {
      const kept = rounds.get(file);
      rounds.delete(file);
      return kept;
    },
    set(file: string, kept: KeptRound): void {
      rounds.delete(file);
      rounds.set(file, kept);
      for (const oldest of rounds.keys()) {
        if (rounds.size <= limit) break;
        rounds.delete(oldest);
      }
    },
    delete(file: string): void {
      rounds.delete(file);
    },
  };
}

type KeptRound = { round: RoundSnapshot } & FileIdentity;

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

function identityOf(stat: Stats): FileIdentity {
  return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
}

function sameFile(stat: Stats | undefined, kept: FileIdentity): boolean {
  return (
    stat !== undefined &&
    stat.ino === kept.ino &&
    stat.size === kept.size &&
    stat.mtimeMs === kept.mtimeMs &&
    stat.ctimeMs === kept.ctimeMs
  );
}

/**
 * Unlinks a file on the thread pool; a missing one is fine. One plain callback: fs/promises'
 * `rm` (an lstat, then the unlink, through FileHandle-era wrappers) costs about three times
 * the CPU.
 */
function removeIfPresent(file: string): Promise<void> {
  return new Promise((resolve, reject) =>
    unlink(file, (error) => (error && error.code !== 'ENOENT' ? reject(error) : resolve())),
  );
}
