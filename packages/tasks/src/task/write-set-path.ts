import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, resolve, sep } from 'node:path';
import { lazyRequire } from '@switchyard/utils';
import type picomatchModule from 'picomatch';

// Only entries with a glob character need picomatch.
const picomatch = lazyRequire<typeof picomatchModule>('picomatch', import.meta.url);

/** Top-level folders a write set may never touch: git internals and the task tree itself. */
export const FORBIDDEN_ROOTS = ['.git', 'agent-task'] as const;

/** A canonical write-set path, or why the entry is refused. */
export type WriteSetPathResult =
  | { ok: true; path: string; resolved?: string }
  | { ok: false; message: string; hint: string };

/**
 * Resolves write-set paths against one workspace. Keeps a cache of directory real paths so
 * checking many entries costs one `realpath` per distinct directory, not per entry.
 */
export class WriteSetResolver {
  readonly workspaceReal: string;
  readonly #dirs = new Map<
    string,
    { real: string; exists: boolean } | { message: string; hint: string }
  >();

  // Tasks often list the same files (that is what claims serialize): check each path once.
  readonly #checked = new Map<string, WriteSetPathResult>();

  // `<workspace real path>/`: every accepted real path starts with it.
  readonly #prefix: string;

  constructor(workspace: string) {
    this.workspaceReal = realpathSync.native(workspace);
    this.#prefix = this.workspaceReal + sep;
    this.#dirs.set('', { real: this.workspaceReal, exists: true });
  }

  /**
   * Checks one entry (already stripped of backticks and notes) and returns its canonical
   * form. Results are remembered: one resolver sees the workspace as it was when first asked.
   */
  check(raw: string): WriteSetPathResult {
    let result = this.#checked.get(raw);
    if (!result) {
      result = this.#check(raw.trim());
      this.#checked.set(raw, result);
    }
    return result;
  }

  #check(entry: string): WriteSetPathResult {
    if (entry === '')
      return refuse(
        'empty write-set entry',
        'write one workspace-relative file path per list item',
      );
    // A NUL ends the path for the system: `src/a\0.ts` would be `src/a` on disk. Never cut it.
    if (/[\u0000-\u001f\u007f]/.test(entry))
      return refuse(
        `"${JSON.stringify(entry).slice(1, -1)}" contains a control character (${/\u0000/.test(entry) ? 'a NUL byte' : 'e.g. a tab or carriage return'})`,
        'write the file path with printable characters only',
      );
    if (entry.includes('\\'))
      return refuse(`"${entry}" uses backslashes`, 'use forward slashes: `src/app/main.ts`');
    if (isAbsolute(entry) || /^[A-Za-z]:[\\/]/.test(entry) || entry.startsWith('~'))
      return refuse(
        `"${entry}" is absolute`,
        'write the path relative to the workspace root, e.g. `src/main.ts`',
      );
    if (entry.endsWith('/'))
      return refuse(
        `"${entry}" is a directory (trailing slash)`,
        'list each file to modify, not its folder',
      );
    // Linux paths stop at 4096 bytes; the checks below walk one folder per component.
    if (entry.length > MAX_ENTRY_CHARS || countSlashes(entry) >= MAX_ENTRY_COMPONENTS)
      return refuse(
        `"${entry.slice(0, 60)}…" is too long (over ${MAX_ENTRY_CHARS} characters or ${MAX_ENTRY_COMPONENTS} folders)`,
        'list real workspace files; no file path is that long',
      );
    const normalized = posix.normalize(entry);
    if (normalized === '..' || normalized.startsWith('../'))
      return refuse(
        `"${entry}" escapes the workspace with ".."`,
        'list only files inside the workspace',
      );
    if (normalized === '.' || normalized === '')
      return refuse(
        `"${entry}" is the workspace root`,
        'list the files to modify, not the workspace',
      );
    if (isForbidden(normalized))
      return refuse(
        `"${entry}" is under ${forbiddenPart(normalized)}/`,
        "write sets may not touch .git/ (the workspace's or a nested repository's) or agent-task/",
      );
    const located = this.#locate(normalized);
    if (!located.ok) return located;
    // A literal file named like a glob (e.g. `app/[id].tsx`) is fine once it exists.
    // Without any glob character picomatch cannot see a glob: skip asking it.
    if (GLOB_CHARS.test(entry) && picomatch().scan(entry).isGlob && !located.existsAsFile)
      return refuse(
        `"${entry}" is a glob pattern`,
        'list concrete file paths; a write set has no wildcards',
      );
    // #locate only accepts real paths strictly inside the workspace: the relative path is
    // the rest after "<workspace>/" (path.relative would resolve both paths again).
    const inside = located.real.slice(this.#prefix.length);
    const resolvedRel = sep === '/' ? inside : inside.split(sep).join('/');
    if (resolvedRel !== normalized && isForbidden(resolvedRel))
      return refuse(
        `"${entry}" resolves to ${resolvedRel}`,
        'write sets may not touch .git/ or agent-task/',
      );
    return resolvedRel === normalized
      ? { ok: true, path: normalized }
      : { ok: true, path: normalized, resolved: resolvedRel };
  }

  #locate(
    rel: string,
  ):
    | { ok: true; real: string; existsAsFile: boolean }
    | { ok: false; message: string; hint: string } {
    const parent = this.#dir(posix.dirname(rel) === '.' ? '' : posix.dirname(rel));
    if ('message' in parent) return { ok: false, ...parent };
    const leaf = join(parent.real, posix.basename(rel));
    let real = leaf;
    let existsAsFile = false;
    if (parent.exists) {
      let link = false;
      try {
        // lstat alone answers for a plain file or folder; only a symlink needs its target.
        const lstat = lstatSync(leaf);
        link = lstat.isSymbolicLink();
        real = link ? realpathSync.native(leaf) : leaf;
        const stat = link ? statSync(real) : lstat;
        if (stat.isDirectory())
          return {
            ok: false,
            message: `"${rel}" is a directory${link ? ' (through a symlink)' : ''}`,
            hint: 'list each file to modify, not its folder',
          };
        if (!stat.isFile())
          return {
            ok: false,
            message: `"${rel}" is ${specialKind(stat)}, not a regular file`,
            hint: 'list only regular files; an agent writing to it could block or reach a device',
          };
        // Another name of the same inode may lie outside the workspace: a write through
        // this one would change that file too.
        if (stat.nlink > 1)
          return {
            ok: false,
            message: `"${rel}" has ${stat.nlink} hard links; writing it changes every other name of the file, which may lie outside the workspace`,
            hint: 'break the link first (cp the file aside and mv it back), then list it',
          };
        existsAsFile = true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTDIR')
          return { ok: false, message: `a parent of "${rel}" is a file`, hint: 'fix the path' };
        // A dangling symlink: the file would be created at its target.
        if (link) real = resolve(dirname(leaf), readlinkSync(leaf));
      }
    }
    if (real === this.workspaceReal)
      return {
        ok: false,
        message: `"${rel}" resolves to the workspace root`,
        hint: 'list files, not the workspace',
      };
    if (!real.startsWith(this.#prefix))
      return {
        ok: false,
        message: `"${rel}" resolves to ${real}, outside the workspace (symlink)`,
        hint: 'list files whose real path stays inside the workspace',
      };
    return { ok: true, real, existsAsFile };
  }

  #dir(rel: string): { real: string; exists: boolean } | { message: string; hint: string } {
    const cached = this.#dirs.get(rel);
    if (cached) return cached;
    const parentRel = posix.dirname(rel) === '.' ? '' : posix.dirname(rel);
    const parent = this.#dir(parentRel);
    if ('message' in parent) return parent;
    const path = join(parent.real, posix.basename(rel));
    let result: { real: string; exists: boolean } | { message: string; hint: string };
    if (!parent.exists) result = { real: path, exists: false };
    else {
      try {
        const real = realpathSync.native(path);
        result = statSync(real).isDirectory()
          ? { real, exists: true }
          : { message: `a parent of "${rel}/…" is a file`, hint: 'fix the path' };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTDIR')
          result = { message: `a parent of "${rel}" is a file`, hint: 'fix the path' };
        else result = { real: danglingTarget(path) ?? path, exists: false };
      }
    }
    if (
      'real' in result &&
      !(result.real === this.workspaceReal || result.real.startsWith(this.workspaceReal + sep))
    )
      result = {
        message: `"${rel}/" resolves to ${result.real}, outside the workspace (symlink)`,
        hint: 'keep write sets inside the workspace',
      };
    this.#dirs.set(rel, result);
    return result;
  }
}

function danglingTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink()
      ? resolve(dirname(path), readlinkSync(path))
      : undefined;
  } catch {
    return undefined;
  }
}

/** Longest write-set entry, in characters (Linux PATH_MAX). */
export const MAX_ENTRY_CHARS = 4096;
/** Most folders a write-set entry may have. */
export const MAX_ENTRY_COMPONENTS = 256;

function countSlashes(text: string): number {
  let n = 0;
  for (let i = text.indexOf('/'); i >= 0; i = text.indexOf('/', i + 1)) n++;
  return n;
}

function specialKind(stat: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'a special file';
}

// Characters without which picomatch finds no glob (wildcards, classes, braces, extglobs, `!`).
const GLOB_CHARS = /[*?[\]{}()!+@]/;

/** True for a path under agent-task/ or any `.git` (the workspace's, a nested repository's, a
 * submodule's gitlink file): a write there changes git's hooks and config, not project files. */
function isForbidden(rel: string): boolean {
  return forbiddenPart(rel) !== undefined;
}

function forbiddenPart(rel: string): string | undefined {
  const parts = rel.split('/');
  if (parts[0]?.toLowerCase() === 'agent-task') return 'agent-task';
  const git = parts.findIndex((part) => part.toLowerCase() === '.git');
  return git < 0 ? undefined : parts.slice(0, git + 1).join('/');
}

function refuse(message: string, hint: string): WriteSetPathResult {
  return { ok: false, message, hint };
}
