import { resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';

/** `switchyard plan convert <file>`: a legacy markdown task file as a YAML plan. */
export function registerPlan(program: Command): void {
  const plan = program
    .command('plan')
    .description(
      'Work with task plans before they run: convert legacy markdown task files, review plans.',
    );
  plan
    .command('convert')
    .description('Print a legacy markdown task file (### Task N: Title …) as a YAML plan.')
    .argument('<file>', 'the markdown task file')
    .addHelpText(
      'after',
      `
Reads \`### Task N: Title\` sections with \`- Agent:\`, \`- Model:\`, \`- Parallel:\`,
\`- Dependencies:\`, \`- Definition of Done:\` (\`Command:\` / \`Assertion:\` below it) and
\`- Files: a, b\` (the write set). \`Task N\` becomes id "N", \`Parallel: K\` lane "K",
"Dependencies: Task 1" \`depends_on: ["1"]\`; other bullets become implementation items;
agent and model names stay as comments (set \`backend\` to a catalog target or agent).
\`switchyard run tasks.md\` converts the same way on the fly. Exit 2 when the markdown has
problems (each with its line).

Examples:
  $ switchyard plan convert 01_TASKS.md > 01_TASKS.yaml
  $ switchyard run 01_TASKS.md --dry-run`,
    )
    .action(async (file: string) => {
      const tasksLib = await import('@switchyard/tasks');
      const { printProblems } = await import('../output.js');
      const read = tasksLib.readPlanText(resolve(file), file);
      if ('problem' in read) {
        printProblems([{ ...read.problem, code: 'SY_YAML_PLAN_INVALID' }]);
        process.exitCode = EXIT.INVALID_INPUT;
        return;
      }
      const converted = tasksLib.convertMarkdownPlan(read.text, file);
      if (converted.problems.length > 0) {
        printProblems(converted.problems);
        process.exitCode = EXIT.INVALID_INPUT;
        return;
      }
      process.stdout.write(converted.yaml);
    });
}
