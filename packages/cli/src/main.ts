import { resolve } from 'node:path';
import { environmentError } from '@switchyard/core/errors';
import { CommanderError } from 'commander';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { printError, printJsonError } from './output.js';
import { buildProgram } from './program.js';

/**
 * Runs the CLI with the given arguments and returns the exit code; never calls
 * `process.exit` itself so it can be tested in-process as well as through the binary.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version print and end with code 0; everything else is a usage error.
      if (error.exitCode === 0) return EXIT.OK;
      return EXIT.INVALID_INPUT;
    }
    // A read-only or full disk, a file in the way: the machine's state, said as such.
    const shown = environmentError(error, workspaceArgument(argv)) ?? error;
    printError(shown);
    // A machine reading --json output learns why as well, not only from stderr.
    if (argv.includes('--json')) printJsonError(shown, exitCodeFor(shown));
    return exitCodeFor(shown);
  }
}

/** The folder a command works in: its `--workspace` argument, else the current folder. */
function workspaceArgument(argv: readonly string[]): string {
  const at = argv.indexOf('--workspace');
  const inline = argv.find((a) => a.startsWith('--workspace='));
  const value = at >= 0 ? argv[at + 1] : inline?.slice('--workspace='.length);
  return resolve(value ?? '.');
}
