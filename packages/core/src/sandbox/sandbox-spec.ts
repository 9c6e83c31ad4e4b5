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

/**
 * The bwrap arguments for a spec, up to and including `--`: a new user, PID and IPC namespace
 * (no capabilities, so no mount can be undone inside), the network namespace when `network` is
 * "none", the mount table, and `cwd`. Deliberately not `--die-with-parent` (its parent, the
 * spawn helper, ends with the dispatcher, and recovery must find the agent still running) and
 * not `--new-session` (the agent already leads its own session with no terminal, and staying in
 * bwrap's process group lets the runner end the whole sandbox by group). The PID namespace's
 * init (bwrap) ends every process of the sandbox when the agent exits.
 */
export function bwrapArgs(spec: SandboxSpec, cwd: string): string[] {
  const args = ['--unshare-user', '--unshare-pid', '--unshare-ipc'];
  if (spec.network === 'none') args.push('--unshare-net');
  args.push('--cap-drop', 'ALL');
  for (const mount of spec.mounts) {
    switch (mount.type) {
      case 'ro-bind':
        args.push('--ro-bind', mount.path, mount.path);
        break;
      case 'bind':
        args.push('--bind', mount.path, mount.path);
        break;
      case 'tmpfs':
        args.push('--tmpfs', mount.path);
        break;
      case 'hide-dir':
        args.push('--tmpfs', mount.path, '--remount-ro', mount.path);
        break;
      case 'hide-file':
        args.push('--ro-bind', '/dev/null', mount.path);
        break;
      case 'dev':
        args.push('--dev', mount.path);
        break;
      case 'proc':
        args.push('--proc', mount.path);
        break;
    }
  }
  args.push('--chdir', cwd, '--');
  return args;
}

/** The argv that runs `argv` inside the sandbox. */
export function sandboxedArgv(spec: SandboxSpec, cwd: string, argv: readonly string[]): string[] {
  return [spec.command, ...bwrapArgs(spec, cwd), ...argv];
}

/** The mounts every sandbox starts with: the root read-only, its own /dev and /proc, a private /tmp. */
export const BASE_MOUNTS: readonly SandboxMount[] = [
  { type: 'ro-bind', path: '/', why: 'root' },
  { type: 'dev', path: '/dev', why: 'dev' },
  { type: 'proc', path: '/proc', why: 'proc' },
  { type: 'tmpfs', path: '/tmp', why: 'tmp' },
];

/**
 * The argv that tells whether bwrap works here: `true` in the smallest sandbox with the same
 * namespaces every attempt gets (the network one too when a target has `network: "none"`).
 */
export function sandboxProbeArgv(command: string, network: 'host' | 'none'): string[] {
  return sandboxedArgv({ mode: 'bwrap', command, network, mounts: [...BASE_MOUNTS] }, '/', [
    'true',
  ]);
}
