import { commandRunnerFault } from './command-runners.js';

/**
 * Finds a shell or inline-code interpreter behind wrapper programs in an argv template:
 * `/usr/bin/env sh -c …`, `nice -n 5 bash -c …`, `timeout 60 xargs sh -c …`, `node -e …`,
 * `python3 -c …`, `busybox sh -c …`. Commands run without a shell; a catalog that starts one
 * anyway (directly or through a wrapper) would run arbitrary command lines.
 */

const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ash',
  'ksh',
  'mksh',
  'yash',
  'csh',
  'tcsh',
  'fish',
  'cmd',
  'cmd.exe',
  'pwsh',
  'powershell',
  'powershell.exe',
]);

/** Interpreters and the flags after which their next argument is code (not a file). */
const INLINE_CODE_FLAGS: Record<string, RegExp> = {
  node: /^(-e|--eval|-p|--print|-pe|--input-type.*|--eval=.*|--print=.*|--import=data:.*|--require=data:.*)$/,
  nodejs: /^(-e|--eval|-p|--print|-pe|--eval=.*|--print=.*)$/,
  bun: /^(-e|--eval|-p|--print|--eval=.*|--print=.*)$/,
  deno: /^(eval|-e)$/,
  tsx: /^(-e|--eval|-p|--print|--eval=.*|--print=.*)$/,
  'ts-node': /^(-e|--eval|-p|--print|--eval=.*|--print=.*)$/,
  perl: /^-\w*[eE]\w*$/,
  ruby: /^-\w*e\w*$/,
  python: /^-\w*c/,
  pypy: /^-\w*c/,
  php: /^-\w*[rBRE]\w*$/,
  lua: /^-e/,
  luajit: /^-e/,
  tclsh: /^-c$/,
  wish: /^-c$/,
  expect: /^-\w*c$/,
  osascript: /^-e$/,
  R: /^(-e|--expr.*)$/,
  Rscript: /^-e$/,
  julia: /^(-e|--eval|-E|--print|--eval=.*|--print=.*)$/,
  elixir: /^(-e|--eval|-r)$/,
  erl: /^(-eval|-s|-run)$/,
  guile: /^(-c|-e)$/,
  racket: /^(-e|--eval|-r)$/,
  sbcl: /^(--eval|--load)$/,
  clojure: /^(-e|--eval|-M|-X)$/,
  clj: /^(-e|--eval|-M|-X)$/,
  groovy: /^-\w*e$/,
  ghc: /^(-e)$/,
  emacs: /^(--eval|-eval|--execute|--eval=.*|-l|--load)$/,
  make: /^(--eval|--eval=.*|-E)$/,
  qjs: /^(-e|--eval)$/,
};

// Programs that run their remaining arguments as a command. Each lists the options that take
// a separate value (so the value is not mistaken for the command).
const WRAPPERS: Record<string, { valued: Set<string>; leadingOperands?: number }> = {
  env: { valued: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']) },
  nice: { valued: new Set(['-n', '--adjustment']) },
  nohup: { valued: new Set() },
  setsid: { valued: new Set() },
  stdbuf: { valued: new Set(['-i', '-o', '-e']) },
  timeout: { valued: new Set(['-s', '--signal', '-k', '--kill-after']), leadingOperands: 1 },
  xargs: {
    valued: new Set(['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter']),
  },
  sudo: { valued: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U']) },
  doas: { valued: new Set(['-u', '-C']) },
  ionice: { valued: new Set(['-c', '-n', '-p', '-P', '-u']) },
  taskset: { valued: new Set(), leadingOperands: 1 },
  flock: { valued: new Set(['-w', '--timeout', '-E', '--conflict-exit-code']), leadingOperands: 1 },
  time: { valued: new Set(['-f', '--format', '-o', '--output']) },
  command: { valued: new Set() },
  exec: { valued: new Set(['-a']) },
  busybox: { valued: new Set() },
  toybox: { valued: new Set() },
  unbuffer: { valued: new Set() },
  chroot: { valued: new Set(), leadingOperands: 1 },
  chrt: { valued: new Set(), leadingOperands: 1 },
  faketime: { valued: new Set(['-m', '-f']), leadingOperands: 1 },
  unshare: { valued: new Set(['-S', '-G', '--setuid', '--setgid', '-R', '--root', '-w', '--wd']) },
  nsenter: { valued: new Set(['-t', '--target', '-S', '-G', '-r', '-w']) },
  firejail: { valued: new Set() },
  fakeroot: { valued: new Set(['-l', '-s', '-i']) },
  pkexec: { valued: new Set(['--user']) },
  torsocks: { valued: new Set(['-u', '-p', '-a', '-P']) },
  proxychains: { valued: new Set(['-f']) },
  'dbus-run-session': { valued: new Set(['--config-file', '--dbus-daemon']) },
  'xvfb-run': { valued: new Set(['-n', '-s', '-f', '-e', '-p', '-w']) },
  catchsegv: { valued: new Set() },
  valgrind: { valued: new Set() },
  ltrace: { valued: new Set(['-e', '-o', '-p', '-s', '-u', '-n']) },
  'systemd-run': {
    valued: new Set([
      '-p',
      '--property',
      '-u',
      '--unit',
      '-M',
      '--machine',
      '-E',
      '--setenv',
      '--uid',
      '--gid',
      '--nice',
      '--working-directory',
      '-d',
    ]),
  },
  'ssh-agent': { valued: new Set(['-a', '-E', '-t', '-P']) },
  setpriv: { valued: new Set(['--reuid', '--regid', '--groups', '--inh-caps', '--bounding-set']) },
  prlimit: { valued: new Set(['-p', '--pid']) },
  numactl: { valued: new Set(['-C', '-N', '-m', '-i', '-p']) },
  cgexec: { valued: new Set(['-g']) },
  chpst: {
    valued: new Set([
      '-u',
      '-U',
      '-e',
      '-/',
      '-n',
      '-l',
      '-L',
      '-m',
      '-d',
      '-o',
      '-p',
      '-f',
      '-c',
      '-t',
    ]),
  },
  caffeinate: { valued: new Set(['-t', '-w']) },
  runuser: { valued: new Set(['-u', '-g', '-c']) },
  su: { valued: new Set(['-c', '-s', '-g']) },
  strace: { valued: new Set(['-e', '-o', '-p', '-s', '-u']) },
  watch: { valued: new Set(['-n', '--interval', '-d']) },
};

const basename = (path: string) => path.split('/').pop() ?? '';

/** `python3.12` → `python`, `perl5.36` → `perl`, `node22` → `node`. */
function family(name: string): string {
  const base = basename(name).replace(/\.exe$/i, '');
  const stem = base.replace(/[\d.]+$/, '');
  return stem || base;
}

/** The program a wrapper runs, as an index into argv, or undefined when it runs none. */
function wrappedCommand(argv: readonly string[], at: number): number | undefined {
  const wrapper = WRAPPERS[family(argv[at] ?? '')];
  if (!wrapper) return undefined;
  let i = at + 1;
  let operands = wrapper.leadingOperands ?? 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      i += wrapper.valued.has(arg) ? 2 : 1;
      continue;
    }
    // env's NAME=value assignments precede the command.
    if (family(argv[at] ?? '') === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      i++;
      continue;
    }
    if (operands > 0) {
      operands--;
      i++;
      continue;
    }
    break;
  }
  return i < argv.length ? i : undefined;
}

function firstOperand(args: readonly string[]): number {
  const at = args.findIndex((a) => !a.startsWith('-'));
  return at < 0 ? args.length : at;
}

/** Why `argv` ends up in a shell or runs inline code, or undefined. */
export function hiddenShell(argv: readonly string[]): string | undefined {
  let at = 0;
  const chain: string[] = [];
  for (let depth = 0; depth < 16 && at < argv.length; depth++) {
    const program = argv[at] as string;
    const name = family(program);
    const rest = argv.slice(at + 1);
    // `env -S "sh -c …"` splits its argument into a new argv.
    if (name === 'env') {
      const split = rest.findIndex(
        (a) => a === '-S' || a === '--split-string' || a.startsWith('-S'),
      );
      if (split >= 0) {
        const text =
          rest[split] === '-S' || rest[split] === '--split-string'
            ? rest[split + 1]
            : rest[split]?.slice(2);
        const inner = hiddenShell((text ?? '').trim().split(/\s+/));
        if (inner) return `${[...chain, program].join(' → ')} -S → ${inner}`;
      }
    }
    const direct = shellOrInlineCode(program, rest) ?? commandRunnerFault(name, rest);
    if (direct) return [...chain, direct].join(' → ');
    const next = wrappedCommand(argv, at);
    if (next === undefined) break;
    chain.push(program);
    at = next;
  }
  // Wrappers this file does not know (`docker run IMAGE`, `kubectl exec POD --`, `ssh HOST`…)
  // still end in the shell or interpreter: look for one anywhere further on.
  for (let i = 1; i < argv.length; i++) {
    const found = shellOrInlineCode(argv[i] as string, argv.slice(i + 1));
    if (found) return `${argv[0]} … ${found}`;
  }
  return undefined;
}

/** Why `program` with `rest` is a shell given a command line or an interpreter given code. */
function shellOrInlineCode(program: string, rest: readonly string[]): string | undefined {
  const name = family(program);
  if (SHELLS.has(basename(program)) || SHELLS.has(name)) {
    const windows = /^(cmd|pwsh|powershell)/i.test(name);
    if (
      rest.some(
        (a) =>
          /^-\w*c\w*$/.test(a) ||
          (windows &&
            (/^\/[ck]$/i.test(a) || /^-(e|c|ec|enc\w*|encodedcommand|command)$/i.test(a))),
      )
    )
      return `${program} -c`;
    return undefined;
  }
  if (name === 'awk' || name === 'gawk' || name === 'mawk' || name === 'nawk')
    return rest.length > 0 ? `${program} (runs an inline program)` : undefined;
  const code = INLINE_CODE_FLAGS[name];
  // Options come before the script file; after it, flags belong to the script.
  const options = rest.slice(0, firstOperand(rest));
  if (code && options.some((a) => code.test(a))) return `${program} with inline code`;
  return undefined;
}
