import { main } from './main.js';

/** The binary after the Node check: runs the CLI and sets the exit code. */
export async function runBin(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2));
}
