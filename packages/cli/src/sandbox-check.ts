import { readFileSync } from 'node:fs';
// The dry-run subpath: the dry run loads this module too (no dispatcher, no plugins).
import { findExecutable } from '@switchyard/catalog';
import type { ProjectConfig } from '@switchyard/config';
import { sandboxForTarget } from '@switchyard/config';
import type { Problem } from '@switchyard/core/dry-run';
import { sandboxProbeArgv } from '@switchyard/runner-kit/dry-run';
import { execa } from 'execa';

/** What the run needs to know of the sandbox: the bwrap that works, or why none does. */
export interface SandboxCheck {
  /** Targets (of those checked) that run sandboxed. */
  sandboxed: string[];
  /** The bwrap executable that started a sandbox here (set when `sandboxed` is not empty and
   * nothing is wrong). */
  command?: string;
  /** `bwrap --version`, when asked for. */
  version?: string;
  problems: Problem[];
}

const INSTALL =
  'install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install bubblewrap`; Arch: `sudo pacman -S bubblewrap`)';
const OPT_OUT = 'or set `"sandbox": "none"` in the project config to run agents uncontained';

function sysctl(name: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The fix for bwrap failing to create its namespaces, from what this kernel says. */
export function namespaceFix(): string {
  const fixes: string[] = [];
  if (sysctl('kernel.unprivileged_userns_clone') === '0')
    fixes.push('`sudo sysctl -w kernel.unprivileged_userns_clone=1`');
  if (sysctl('user.max_user_namespaces') === '0')
    fixes.push('`sudo sysctl -w user.max_user_namespaces=28633`');
  if (sysctl('kernel.apparmor_restrict_unprivileged_userns') === '1')
    fixes.push(
      '`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 23.10+; or an AppArmor profile that allows bwrap user namespaces)',
    );
  if (fixes.length === 0)
    fixes.push(
      '`sudo sysctl -w kernel.unprivileged_userns_clone=1` (Debian), `sudo sysctl -w user.max_user_namespaces=28633`, or on Ubuntu 23.10+ `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`',
    );
  return `allow unprivileged user namespaces: ${fixes.join('; ')} (keep it in /etc/sysctl.d/ to survive a reboot); in a container, run it with user namespaces allowed (e.g. Docker's --security-opt seccomp=unconfined or a rootless setup)`;
}

const unavailable = (message: string, hint: string): Problem => ({
  code: 'SY_SANDBOX_UNAVAILABLE',
  severity: 'error',
  message,
  hint,
});

/**
 * Checks, before anything starts, that the targets the config sandboxes can be: every
 * `sandboxTargets` key names a catalog target, `bwrap` is on PATH, and it can create the
 * namespaces an attempt gets (a `true` run in the smallest sandbox). Each problem says what
 * was tried and how to fix it.
 */
export async function checkSandbox(input: {
  config: Pick<ProjectConfig, 'sandbox' | 'sandboxTargets'>;
  /** Every target id of the catalog (for `sandboxTargets`). */
  catalogTargets: readonly string[];
  /** The targets the run can use. */
  targets: readonly string[];
  env?: NodeJS.ProcessEnv;
  version?: boolean;
}): Promise<SandboxCheck> {
  const env = input.env ?? process.env;
  const problems: Problem[] = [];
  for (const id of Object.keys(input.config.sandboxTargets)) {
    if (!input.catalogTargets.includes(id))
      problems.push({
        code: 'SY_CONFIG_INVALID',
        severity: 'error',
        path: `sandboxTargets.${id}`,
        message: `sandboxTargets names "${id}", which is not a target of the catalog`,
        hint: `use one of: ${input.catalogTargets.join(', ')}`,
      });
  }
  const configs = input.targets.map((id) => [id, sandboxForTarget(input.config, id)] as const);
  const sandboxed = configs.filter(([, c]) => c !== 'none');
  const result: SandboxCheck = { sandboxed: sandboxed.map(([id]) => id), problems };
  if (sandboxed.length === 0) return result;
  const who = `${result.sandboxed.length === 1 ? 'target' : 'targets'} ${result.sandboxed.join(', ')} ${result.sandboxed.length === 1 ? 'is' : 'are'} to run sandboxed (config \`sandbox\`${Object.keys(input.config.sandboxTargets).length > 0 ? '/`sandboxTargets`' : ''})`;
  const network = sandboxed.some(([, c]) => c !== 'none' && c.network === 'none') ? 'none' : 'host';
  const probe = await probeBwrap({ env, network, version: input.version === true });
  if ('problem' in probe) {
    problems.push(unavailable(`${who}, but ${probe.problem}`, probe.hint));
    return result;
  }
  result.command = probe.command;
  if (probe.version) result.version = probe.version;
  return result;
}

/** A bwrap that starts a sandbox here, or what went wrong and how to fix it. */
export type BwrapProbe = { command: string; version?: string } | { problem: string; hint: string };

/**
 * Finds `bwrap` on PATH and runs `true` in the smallest sandbox with the namespaces every
 * attempt gets: it works, or the problem says what was tried and the hint how to fix it.
 */
export async function probeBwrap(options: {
  env?: NodeJS.ProcessEnv;
  network?: 'host' | 'none';
  version?: boolean;
}): Promise<BwrapProbe> {
  const env = options.env ?? process.env;
  const command = findExecutable('bwrap', env);
  if (!command)
    return {
      problem: `no \`bwrap\` (bubblewrap) was found: looked on PATH (${env.PATH ?? ''})`,
      hint: `${INSTALL}; ${OPT_OUT}`,
    };
  const [file, ...args] = sandboxProbeArgv(command, options.network ?? 'host');
  const probe = await execa(file!, args, {
    env,
    extendEnv: false,
    stdin: 'ignore',
    all: true,
    reject: false,
    timeout: 15_000,
  });
  if (probe.exitCode !== 0) {
    const said = (typeof probe.all === 'string' ? probe.all : '')
      .trim()
      .split('\n')
      .slice(-3)
      .join(' | ');
    return {
      problem: `bubblewrap cannot start a sandbox here: ran \`${[file, ...args].join(' ')}\`: ${probe.timedOut ? 'timed out' : `exit ${probe.exitCode ?? probe.signal}`}${said ? `: ${said}` : ''}`,
      hint: /namespace|uid map|permission|operation not permitted/i.test(said)
        ? `${namespaceFix()}; ${OPT_OUT}`
        : `check that ${command} is bubblewrap 0.4 or newer and works (\`${command} --version\`); ${INSTALL}; ${OPT_OUT}`,
    };
  }
  if (!options.version) return { command };
  const v = await execa(command, ['--version'], {
    reject: false,
    stdin: 'ignore',
    env,
    extendEnv: false,
  });
  return v.exitCode === 0 ? { command, version: String(v.stdout).trim() } : { command };
}
