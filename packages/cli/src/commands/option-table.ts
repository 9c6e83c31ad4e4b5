import type { Command } from 'commander';

/** One option of a command: its flags, its description, and the parser of its value if any. */
export type OptionRow = readonly [
  flags: string,
  description: string,
  parse?: (value: string, previous: unknown) => unknown,
];

/** Adds the options of a table to a command, in the table's order (the order of its help). */
export function addOptions(command: Command, rows: readonly OptionRow[]): Command {
  for (const [flags, description, parse] of rows) {
    if (parse) command.option<unknown>(flags, description, parse);
    else command.option(flags, description);
  }
  return command;
}
