import { EXIT_PIPE_CLOSED, handleClosedPipes, outputClosed } from './closed-pipe.js';
import { main } from './main.js';

/** The binary after the Node check: runs the CLI and sets the exit code. */
export async function runBin(): Promise<void> {
  handleClosedPipes();
  const code = await main(process.argv.slice(2));
  process.exitCode = outputClosed() ? EXIT_PIPE_CLOSED : code;
}
