import { existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { BwrapSandboxConfig } from '@switchyard/config';
import type {
  AgentWritablePath,
  SandboxMount,
  SandboxMountReason,
  SandboxSpec,
} from '@switchyard/core';
import { BASE_MOUNTS } from './bwrap-argv.js';

/** What an attempt's mount table is built from. */
export interface SandboxPlanInput {
  config: BwrapSandboxConfig;
  /** The bwrap executable (absolute). */
  command: string;
  /** The agent's HOME: what `~` means in the config and in the agent plugin's paths. */
  home: string;
  /** The source workspace (its `.git` and the state folder stay read-only). */
  workspace: string;
  /** The state folder (`agent-task/.switchyard`): read-only but for the attempt's own folder. */
  stateDir: string;
  /** Where the agent works: its task's worktree, or the workspace under isolation "none". */
  workdir: string;
  /** True when `workdir` is the task's own worktree (all of it is writable). */
  worktree: boolean;
  /** Under isolation "none": the write set, workspace-relative (`any`: the whole workspace). */
  writeSet?: readonly string[] | 'any';
  attemptDir: string;
  /** The task's folder (its plans, the review file the agent writes, the next plan). */
  taskDir: string;
  /** The paths the agent CLI writes, as its agent plugin declares them. */
  agentPaths: readonly AgentWritablePath[];
  /** The agent's executable: under /tmp, the folder below /tmp that holds it is bound back read-only. */
  executable?: string;
  /** The command's other arguments: a file among them under /tmp (a script, its scenario)
   * makes the folder below /tmp that holds it visible read-only, with what it imports. */
  arguments?: readonly string[];
}

// When two entries name the same path, the later kind wins.
const RANK: Record<string, number> = { visible: 0, rw: 1, hide: 2, protect: 3 };

interface Entry {
  mount: SandboxMount;
  rank: number;
}

/** `~` and `~/x` against `home`; anything else resolved as absolute. */
export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return resolve(path);
}

const real = (path: string): string | undefined => {
  try {
    return realpathSync.native(path); // one syscall, not an lstat per component
  } catch {
    return undefined;
  }
};

const isDir = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

const within = (path: string, parent: string): boolean =>
  parent === '/' || path === parent || path.startsWith(`${parent}${sep}`);

const depth = (path: string): number => (path === '/' ? 0 : path.split(sep).length - 1);

/**
 * The mount table of one sandboxed attempt. Everything is read-only (the root bound
 * read-only) except: a private /tmp; the worktree (under isolation "none": the write set's
 * files, or for a file not there yet the folder it is created in); the attempt folder; the
 * task folder; the paths the agent CLI writes (folders created when missing, as the CLI would
 * at its first start; files only when they exist); the config's `writable`. `hide` masks
 * credential folders. The repository's `.git` (and a worktree's `.git` file and its git
 * folder) and the state folder stay read-only even where a writable path covers them. Paths
 * the attempt must see that live under /tmp (workspace, HOME, the executable) are bound back
 * read-only. Entries apply from the shortest path to the longest, so the most specific decides.
 */
export function planSandbox(input: SandboxPlanInput): SandboxSpec {
  const entries: Entry[] = [];
  const add = (type: SandboxMount['type'], path: string, why: SandboxMountReason, rank: number) =>
    entries.push({ mount: { type, path, why }, rank });

  // A missing folder is created first when `create` says with which mode (bwrap binds only
  // what exists); otherwise a missing path is left out.
  const writable = (path: string, why: SandboxMountReason, create?: { mode?: number }) => {
    if (create && !existsSync(path)) mkdirSync(path, { recursive: true, ...create });
    const at = real(path);
    if (at !== undefined) add('bind', at, why, RANK.rw!);
  };

  if (input.worktree) writable(input.workdir, 'worktree');
  else if (input.writeSet === 'any') writable(input.workdir, 'workspace');
  else {
    for (const file of input.writeSet ?? []) {
      const path = resolve(input.workdir, file);
      // a file not there yet: the folder it is created in (made now, as a project folder)
      if (existsSync(path)) writable(path, 'write-set');
      else writable(dirname(path), 'write-set', {});
    }
  }
  writable(input.attemptDir, 'attempt', { mode: 0o700 });
  writable(input.taskDir, 'task');
  for (const { path, kind } of input.agentPaths)
    writable(expandHome(path, input.home), 'agent', kind === 'dir' ? { mode: 0o700 } : undefined);
  for (const path of input.config.writable) writable(expandHome(path, input.home), 'writable');

  for (const path of input.config.hide) {
    const at = real(expandHome(path, input.home));
    if (at !== undefined) add(isDir(at) ? 'hide-dir' : 'hide-file', at, 'hide', RANK.hide!);
  }

  const rw = entries.filter((e) => e.mount.type === 'bind').map((e) => e.mount.path);
  const coveredByRw = (path: string) => rw.some((p) => within(path, p));
  // .git and the state folder: read-only again wherever a writable path covers them
  for (const path of gitPaths(input.workspace, input.workdir)) {
    if (coveredByRw(path)) add('ro-bind', path, 'git', RANK.protect!);
  }
  const state = real(input.stateDir);
  if (state !== undefined && coveredByRw(state)) add('ro-bind', state, 'state', RANK.protect!);
  // what the private /tmp would hide from the attempt
  const visible = [
    input.workspace,
    input.home,
    // a shim may exec its neighbours (node_modules/.bin/node runs ../node/bin/node): the whole
    // folder below /tmp that holds the command's files, not only their own folders
    ...[input.executable ?? '', ...(input.arguments ?? [])].map(folderBelowTmp),
  ];
  for (const path of visible) {
    const at = path && isAbsolute(path) ? real(path) : undefined;
    if (at !== undefined && within(at, '/tmp') && at !== '/tmp' && !coveredByRw(at))
      add('ro-bind', at, 'visible', RANK.visible!);
  }

  return {
    mode: 'bwrap',
    command: input.command,
    network: input.config.network,
    mounts: [...BASE_MOUNTS, ...order(entries)],
  };
}

/** For an existing absolute path under /tmp, the folder right below /tmp that holds it. */
function folderBelowTmp(arg: string): string | undefined {
  if (!isAbsolute(arg) || !within(arg, '/tmp') || !existsSync(arg)) return undefined;
  const [top] = relative('/tmp', arg).split(sep);
  return top ? join('/tmp', top) : undefined;
}

/** Shortest path first; for one path only the entry of the highest rank stays. */
function order(entries: Entry[]): SandboxMount[] {
  const byPath = new Map<string, Entry>();
  for (const entry of entries) {
    const seen = byPath.get(entry.mount.path);
    if (!seen || entry.rank >= seen.rank) byPath.set(entry.mount.path, entry);
  }
  return [...byPath.values()]
    .sort((a, b) => depth(a.mount.path) - depth(b.mount.path) || a.rank - b.rank)
    .map((e) => e.mount);
}

/**
 * The git metadata of the workspace and of the worktree: each `.git` (folder or file) and,
 * for a `.git` file (a worktree), the git folder it points to.
 */
function gitPaths(...dirs: string[]): string[] {
  const found = new Set<string>();
  for (const dir of dirs) {
    const dotGit = real(join(dir, '.git'));
    if (dotGit === undefined) continue;
    found.add(dotGit);
    if (isDir(dotGit)) continue;
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSafe(dotGit))?.[1]?.trim();
    const target = pointer ? real(resolve(dirname(dotGit), pointer)) : undefined;
    if (target !== undefined) found.add(target);
  }
  return [...found];
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
