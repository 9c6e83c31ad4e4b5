import type { Command } from 'commander';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** Every command path (`catalog init`) with its long options, from the live command tree. */
function commandTable(program: Command): { path: string[]; options: string[] }[] {
  const rows: { path: string[]; options: string[] }[] = [];
  const walk = (command: Command, path: string[]) => {
    rows.push({
      path,
      options: command.options.flatMap((o) => (o.long ? [o.long] : [])).concat('--help'),
    });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return rows;
}

/** The completion script for a shell, generated from the commands and options defined. */
export function completionScript(program: Command, shell: Shell): string {
  const rows = commandTable(program);
  const subcommands = (path: string[]) =>
    rows
      .filter((r) => r.path.length === path.length + 1 && path.every((p, i) => r.path[i] === p))
      .map((r) => r.path.at(-1) ?? '');
  if (shell === 'bash' || shell === 'zsh') {
    const cases = rows
      .map((r) => {
        const words = [...subcommands(r.path), ...r.options].join(' ');
        return `    "${r.path.join(' ')}") words="${words}" ;;`;
      })
      .join('\n');
    const bash = `_switchyard() {
  local cur path="" w words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for w in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$w" in -*) ;; *) path="\${path:+$path }$w" ;; esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _switchyard switchyard
`;
    return shell === 'bash'
      ? `# switchyard completion for bash: eval "$(switchyard completion bash)"\n${bash}`
      : `# switchyard completion for zsh: eval "$(switchyard completion zsh)"\nautoload -U +X bashcompinit && bashcompinit\n${bash}`;
  }
  const lines = ['# switchyard completion for fish: switchyard completion fish | source'];
  lines.push('complete -c switchyard -f');
  for (const r of rows) {
    const condition =
      r.path.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${r.path.at(-1)}`;
    for (const sub of subcommands(r.path))
      lines.push(`complete -c switchyard -n '${condition}' -a ${sub}`);
    for (const option of r.options)
      lines.push(`complete -c switchyard -n '${condition}' -l ${option.slice(2)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `switchyard completion bash|zsh|fish`: prints a shell completion script. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish).')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`)
    .addHelpText(
      'after',
      `
Examples:
  $ eval "$(switchyard completion bash)"     # in ~/.bashrc
  $ eval "$(switchyard completion zsh)"      # in ~/.zshrc
  $ switchyard completion fish > ~/.config/fish/completions/switchyard.fish`,
    )
    .action(async (shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        const { SwitchyardError } = await import('@switchyard/core/errors');
        throw new SwitchyardError('SY_USAGE', `unknown shell "${shell}".`, {
          hint: `use one of ${SHELLS.join(', ')}`,
        });
      }
      let root = program;
      while (root.parent) root = root.parent;
      process.stdout.write(completionScript(root, shell as Shell));
    });
}
