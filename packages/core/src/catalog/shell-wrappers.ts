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
  node: /^(-e|--eval|-p|--print|-pe|--input-type.*)$/,
  nodejs: /^(-e|--eval|-p|--print|-pe)$/,
  bun: /^(-e|--eval|-p|--print)$/,
  deno: /^(eval|-e)$/,
  perl: /^-\w*[eE]\w*$/,
  ruby: /^-\w*e\w*$/,
  python: /^-\w*c$/,
  php: /^-\w*r$/,
  lua: /^-e$/,
  tclsh: /^-c$/,
  osascript: /^-e$/,
  R: /^(-e|--expr.*)$/,
  Rscript: /^-e$/,
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
  chrt: { valued: new Set() },
  taskset: { valued: new Set(), leadingOperands: 1 },
  flock: { valued: new Set(['-w', '--timeout', '-E', '--conflict-exit-code']), leadingOperands: 1 },
  time: { valued: new Set(['-f', '--format', '-o', '--output']) },
  command: { valued: new Set() },
  exec: { valued: new Set(['-a']) },
  busybox: { valued: new Set() },
  toybox: { valued: new Set() },
  unbuffer: { valued: new Set() },
  chroot: { valued: new Set(), leadingOperands: 1 },
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
    if (SHELLS.has(basename(program)) || SHELLS.has(name))
      if (
        rest.some(
          (a) => /^-\w*c\w*$/.test(a) || a === '/c' || a === '-Command' || a === '--command',
        )
      )
        return [...chain, `${program} -c`].join(' → ');
    if (name === 'awk' || name === 'gawk' || name === 'mawk' || name === 'nawk')
      return [...chain, `${program} (runs an inline program)`].join(' → ');
    const code = INLINE_CODE_FLAGS[name];
    // Options come before the script file; after it, flags belong to the script.
    const options = rest.slice(0, firstOperand(rest));
    if (code && options.some((a) => code.test(a)))
      return [...chain, `${program} with inline code`].join(' → ');
    const next = wrappedCommand(argv, at);
    if (next === undefined) return undefined;
    chain.push(program);
    at = next;
  }
  return undefined;
}
