/**
 * One entry of an attempt's mount table, applied in order on top of the read-only root:
 * `ro-bind`/`bind` a path onto itself read-only/writable, `tmpfs` an empty writable folder,
 * `hide` masks a folder (empty read-only tmpfs) or a file (reads as empty), `dev`/`proc` the
 * sandbox's own /dev and /proc.
 */
export interface SandboxMount {
  type: 'ro-bind' | 'bind' | 'tmpfs' | 'hide-dir' | 'hide-file' | 'dev' | 'proc';
  /** Absolute real path (the same inside and outside the sandbox). */
  path: string;
  /** Why it is there: `root`, `worktree`, `attempt`, `task`, `agent`, `writable`, `git`… */
  why: SandboxMountReason;
}

/** Why a mount is in the table (recorded in the locator, shown by the dry run). */
export type SandboxMountReason =
  | 'root'
  | 'dev'
  | 'proc'
  | 'tmp'
  | 'visible'
  | 'worktree'
  | 'workspace'
  | 'write-set'
  | 'attempt'
  | 'task'
  | 'agent'
  | 'writable'
  | 'hide'
  | 'git'
  | 'state';

/** How one attempt is contained: what the runner turns into a bubblewrap command line. */
export interface SandboxSpec {
  mode: 'bwrap';
  /** The bwrap executable (absolute, found by the run's sandbox check). */
  command: string;
  network: 'host' | 'none';
  /** The complete mount table, in the order it is applied. */
  mounts: SandboxMount[];
}
