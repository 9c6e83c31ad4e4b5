/**
 * Programs that run a command line of their own through a shell, or code given inline, when
 * called with a certain option (`script -c`, `su -c`, `git -c core.pager=…`, `ssh host cmd`,
 * `tar --to-command`, `sed …/e`…). Each rule looks at the program's own arguments and says why
 * it runs something, or nothing. `shell-wrappers.ts` walks wrapper chains and applies these.
 */

type Rule = (args: readonly string[]) => string | undefined;

const has = (args: readonly string[], ...flags: string[]) =>
  args.find((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)));

/** A flag given alone or inside a bundle of short flags (`-lc` holds `-c`). */
const hasShort = (args: readonly string[], letter: string) =>
  args.find((a) => new RegExp(`^-[A-Za-z]*${letter}[A-Za-z]*$`).test(a));

// git config keys whose value is a command (or can define one: include files, aliases with `!`).
const GIT_COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy|worktree)|sequence\.editor|diff\.|merge\.|filter\.|credential\.|gpg\.|pager\.|alias\.|uploadpack\.|receive\.|remote\.|protocol\.|include\.|includeif\.|init\.templatedir|interactive\.|web\.|browser\.|man\.|mergetool\.|difftool\.|ssh\.|url\.|http\.|sendemail\.)/i;
const GIT_RUNNING_OPTIONS = [
  '--exec',
  '-x',
  '--extcmd',
  '--upload-pack',
  '-u',
  '--receive-pack',
  '--config-env',
  '--exec-path',
];

function gitRule(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = arg === '-c' ? args[i + 1] : arg.startsWith('-c') ? arg.slice(2) : undefined;
    if (value !== undefined && GIT_COMMAND_KEYS.test(value.split('=')[0] ?? ''))
      return `git -c ${value.split('=')[0]}=… sets a command git runs`;
  }
  const running = has(args, ...GIT_RUNNING_OPTIONS);
  if (running) return `git ${running.split('=')[0]} runs a command`;
  const words = args.filter((a) => !a.startsWith('-'));
  if (words[0] === 'bisect' && words[1] === 'run') return 'git bisect run runs a command';
  if (words[0] === 'submodule' && words.includes('foreach'))
    return 'git submodule foreach runs a shell command';
  if (words[0] === 'filter-branch' || words[0] === 'filter-repo')
    return `git ${words[0]} runs shell filters`;
  if (words[0] === 'config') return 'git config can set a command git runs';
  return undefined;
}

// ssh options that take a value (the host is the first operand after them).
const SSH_VALUED = new Set('BbcDEeFIiJLlmOoPpQRSWw'.split('').map((c) => `-${c}`));

function sshRule(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const option = arg === '-o' ? (args[i + 1] ?? '') : arg.startsWith('-o') ? arg.slice(2) : '';
    if (/^\s*(proxycommand|localcommand|knownhostscommand|permitlocalcommand)\b/i.test(option))
      return `ssh -o ${option.split(/[=\s]/)[0]} runs a local command`;
  }
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith('-'))
    i += SSH_VALUED.has(args[i] as string) ? 2 : 1;
  // args[i] is the host; anything after it is a command line run by the remote shell
  return i + 1 < args.length ? 'ssh with a command runs it in the remote shell' : undefined;
}

function sedRule(args: readonly string[]): string | undefined {
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-e' || arg === '--expression') scripts.push(args[i + 1] ?? '');
    else if (arg.startsWith('--expression=')) scripts.push(arg.slice(13));
  }
  if (scripts.length === 0) {
    const first = args.find((a) => !a.startsWith('-'));
    if (first !== undefined) scripts.push(first);
  }
  // GNU sed: the `e` command runs a shell command, the `e` flag of `s` runs the result
  const runs = scripts.some(
    (s) =>
      /(^|[;\n{}])\s*[0-9,$]*\s*e(\s|;|$)/.test(s) ||
      /s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpiImM0-9w]*e/.test(s),
  );
  return runs ? 'sed with the e command or flag runs a shell command' : undefined;
}

const RULES: Record<string, Rule> = {
  script: (a) =>
    has(a, '-c', '--command') || hasShort(a, 'c')
      ? 'script -c runs its command through a shell'
      : undefined,
  su: (a) =>
    has(a, '-c', '--command', '--session-command') || hasShort(a, 'c')
      ? 'su -c runs its command through a shell'
      : undefined,
  runuser: (a) =>
    has(a, '-c', '--command', '--session-command')
      ? 'runuser -c runs its command through a shell'
      : undefined,
  sudo: (a) =>
    has(a, '-s', '--shell', '-i', '--login')
      ? 'sudo -s/-i runs its command through a shell'
      : undefined,
  doas: (a) => (has(a, '-s') ? 'doas -s starts a shell' : undefined),
  flock: (a) =>
    has(a, '-c', '--command') ? 'flock -c runs its command through a shell' : undefined,
  watch: (a) =>
    has(a, '-x', '--exec') ? undefined : 'watch runs its command through a shell (sh -c)',
  parallel: () => 'GNU parallel runs its commands through a shell',
  tmux: () => 'tmux runs its commands through a shell',
  screen: (a) => (has(a, '-X') ? 'screen -X sends commands to a session' : undefined),
  git: gitRule,
  ssh: sshRule,
  sed: sedRule,
  npx: (a) => (has(a, '-c', '--call') ? 'npx -c runs its command through a shell' : undefined),
  npm: (a) =>
    (a.includes('exec') || a.includes('x')) && has(a, '-c', '--call')
      ? 'npm exec -c runs its command through a shell'
      : has(a, '--script-shell')
        ? 'npm --script-shell picks the shell its scripts run in'
        : undefined,
  pnpm: (a) =>
    has(a, '-c', '--shell-mode')
      ? 'pnpm -c (shell mode) runs its command through a shell'
      : undefined,
  yarn: (a) => (a[0] === 'exec' ? 'yarn exec runs its command through a shell' : undefined),
  tar: (a) => {
    const f = has(
      a,
      '--to-command',
      '--checkpoint-action',
      '-I',
      '--use-compress-program',
      '--rsh-command',
      '--info-script',
      '--new-volume-script',
      '-F',
    );
    return f ? `tar ${f.split('=')[0]} runs a command` : undefined;
  },
  rsync: (a) => {
    const f = has(a, '-e', '--rsh', '--rsync-path');
    return f ? `rsync ${f.split('=')[0]} runs a command through a shell` : undefined;
  },
  zip: (a) => (has(a, '-TT', '--unzip-command') ? 'zip -TT runs a command' : undefined),
  find: (a) => {
    const f = has(a, '-exec', '-execdir', '-ok', '-okdir');
    return f ? `find ${f} runs a command for each file` : undefined;
  },
  vim: (a) =>
    has(a, '-c', '--cmd', '-S') || a.some((x) => x.startsWith('+'))
      ? 'vim -c runs editor commands (and through them a shell)'
      : undefined,
  gdb: (a) =>
    has(a, '-ex', '--eval-command', '-iex', '-x', '--command')
      ? 'gdb -ex runs debugger commands (and through them a shell)'
      : undefined,
  socat: (a) =>
    a.some((x) => /^(exec|system):/i.test(x)) ? 'socat EXEC:/SYSTEM: runs a command' : undefined,
  nc: (a) =>
    has(a, '-e', '-c', '--exec', '--sh-exec', '--lua-exec') ? 'nc -e/-c runs a command' : undefined,
  xterm: (a) => (has(a, '-e') ? 'xterm -e runs a command' : undefined),
  sg: () => 'sg runs its command through a shell',
  entr: (a) => (hasShort(a, 's') ? 'entr -s runs its command through a shell' : undefined),
};
for (const alias of ['vi', 'nvim', 'ex', 'view', 'vimdiff']) RULES[alias] = RULES.vim as Rule;
for (const alias of ['ncat', 'netcat']) RULES[alias] = RULES.nc as Rule;
RULES.sshpass = (a) => {
  // sshpass [-p pw | -f file | -e | -d fd] ssh …: the ssh rule applies to what follows
  const at = a.findIndex((x) => /(^|\/)ssh$/.test(x));
  return at >= 0 ? sshRule(a.slice(at + 1)) : undefined;
};

/** Why `program` (a family name) with `args` runs a command line or inline code, if it does. */
export function commandRunnerFault(program: string, args: readonly string[]): string | undefined {
  return RULES[program]?.(args);
}
