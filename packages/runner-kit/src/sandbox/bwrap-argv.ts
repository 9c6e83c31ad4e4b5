import type { SandboxMount, SandboxSpec } from '@switchyard/core';

/**
 * The bwrap arguments for a spec, up to and including `--`: a new user, PID and IPC namespace
 * (no capabilities, so no mount can be undone inside), the network namespace when `network` is
 * "none", the mount table, and `cwd`. Deliberately not `--die-with-parent` (its parent, the
 * spawn helper, ends with the dispatcher, and recovery must find the agent still running) and
 * not `--new-session` (the agent already leads its own session with no terminal, and staying in
 * bwrap's process group lets the runner end the whole sandbox by group). bwrap's init (PID 1
 * of the sandbox's PID namespace) lives while anything is left in it and carries the attempt's
 * marker: the runner finds and ends leftovers through it; killing it ends the namespace.
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
