import type { RootCommand } from '@bomb.sh/tab';
import type { Command } from 'commander';
import type { CompletionSources, SourceName } from '../completion-sources.js';

const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
type Shell = (typeof SHELLS)[number];

/** tab's directives (a bit set the generated script reads after the completions). */
const FILTER_FILE_EXT = 8;
const FILTER_DIRS = 16;

type Values = (sources: CompletionSources) => string[];

/** The values an option's argument completes to, by its long name. */
const OPTION_VALUES: Record<string, Values> = {
  with: (s) => s.targets(),
  'task-group': (s) => s.groups(),
  'depends-on': (s) => s.tasks(),
};

/** The values a positional argument completes to, by command path and argument name. */
function argumentValues(path: string, name: string): Values | undefined {
  if (name === 'task' || name === 'tasks')
    return path === 'resolve' || path === 'retry' ? (s) => s.blockedTasks() : (s) => s.tasks();
  if (name === 'session' || name === 'session-id') return (s) => s.sessions();
  if (name === 'target') return (s) => s.targets();
  if (name === 'with') return () => ['with'];
  return undefined;
}

/** Option and argument values that name files or folders: the shell completes those itself. */
const FILE_ARGUMENTS: Record<string, string[] | 'dirs'> = {
  'run plan': ['yaml', 'yml'],
  'classify attempt-dir': 'dirs',
};
const FILE_OPTIONS: Record<string, string[] | 'dirs'> = {
  workspace: 'dirs',
  dir: 'dirs',
  'execution-catalog': ['json', 'jsonc'],
  catalog: ['json', 'jsonc'],
  'validate-plan': ['md'],
};

/**
 * tab's completion tree built from the live commander tree: every visible command (by path,
 * `catalog init`), its options (those that take a value swallow it, so completion goes on
 * after `--with t-main`), its arguments, choices, and the workspace's own ids where a command
 * takes a task, group, session or target.
 */
export function completionTree(
  root: RootCommand,
  program: Command,
  sources: CompletionSources,
  onFiles: (filter: string[] | 'dirs') => void,
): RootCommand {
  const walk = (command: Command, path: string) => {
    const tabCommand = path === '' ? root : root.command(path, command.description());
    const help = command.createHelp();
    for (const option of help.visibleOptions(command)) {
      const long = option.long?.slice(2);
      if (!long) continue;
      const short = option.short?.slice(1);
      const takesValue = option.required || option.optional;
      const values = OPTION_VALUES[long];
      const files = FILE_OPTIONS[long];
      const choices = option.argChoices ?? [];
      if (!takesValue) tabCommand.option(long, option.description, short);
      else
        tabCommand.option(
          long,
          option.description,
          (complete) => {
            if (files) onFiles(files);
            const list = values ? values(sources) : choices;
            for (const value of list) complete(value, '');
          },
          short,
        );
    }
    for (const argument of command.registeredArguments) {
      const values = argumentValues(path, argument.name()) ?? (() => argument.argChoices ?? []);
      const files = FILE_ARGUMENTS[`${path} ${argument.name()}`];
      tabCommand.argument(
        argument.name(),
        (complete) => {
          if (files) onFiles(files);
          for (const value of values(sources)) complete(value, '');
        },
        argument.variadic,
      );
    }
    for (const sub of help.visibleCommands(command))
      if (sub.name() !== 'help') walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  return root;
}

/**
 * The answer to `words` from `sources` (tab prints it with console.log: held back, since a
 * file or folder argument is answered with a directive that lets the shell complete paths).
 */
async function completeWith(
  program: Command,
  sources: CompletionSources,
  words: string[],
): Promise<string> {
  const { RootCommand } = await import('@bomb.sh/tab');
  let files: string[] | 'dirs' | undefined;
  const root = completionTree(new RootCommand(), program, sources, (f) => {
    files = f;
  });
  const lines: unknown[] = [];
  const log = console.log;
  console.log = (line: unknown) => lines.push(line);
  try {
    root.parse([...words]);
  } finally {
    console.log = log;
  }
  return files === undefined
    ? lines.map((line) => `${String(line)}\n`).join('')
    : files === 'dirs'
      ? `:${FILTER_DIRS}\n`
      : `${files.join('\n')}\n:${FILTER_FILE_EXT}\n`;
}

/**
 * Answers one completion request (`switchyard complete -- <words>`) on stdout. A first pass
 * finds which of the workspace's ids the words complete to (tab's handlers are synchronous);
 * only those are read, then the words are completed again with them. Words that need none
 * (a command or flag name) are answered without reading the workspace.
 */
async function answer(program: Command, words: string[]): Promise<void> {
  const { demandedSources, loadSources } = await import('../completion-sources.js');
  const wanted = new Set<SourceName>();
  const first = await completeWith(program, demandedSources(wanted), words);
  if (wanted.size === 0) {
    process.stdout.write(first);
    return;
  }
  const wantsTargets = words.some((w) => w === 'with' || w.startsWith('--with'));
  const sources = await loadSources(process.cwd(), wantsTargets, wanted);
  process.stdout.write(await completeWith(program, sources, words));
}

/**
 * `switchyard completion <shell>` prints a completion script (from the tab library); the
 * script asks the hidden `switchyard complete -- <words>` for each TAB, which answers from
 * the command tree and the workspace it is pressed in.
 */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh, fish or powershell).')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`)
    .addHelpText(
      'after',
      `
Completes commands, options, choices, and the workspace's own ids: task ids (blocked ones
for \`resolve\` and \`retry\`), groups for --task-group, session ids for \`resume\` and
\`status\`, catalog targets for --with and \`run plan.yaml with <target>\`. Each TAB runs
\`switchyard complete -- <words>\` in the current folder, so \`switchyard\` must be on PATH.
bash needs the bash-completion package.

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
      const { script } = await import('@bomb.sh/tab');
      script(shell as Shell, 'switchyard', 'switchyard');
    });
  program
    .command('complete', { hidden: true })
    .description('Answer one completion request of the completion script.')
    .usage('-- [words...]')
    .argument('[words...]')
    .allowUnknownOption()
    .action(async (words: string[]) => {
      let root = program;
      while (root.parent) root = root.parent;
      await answer(root, words);
    });
}
