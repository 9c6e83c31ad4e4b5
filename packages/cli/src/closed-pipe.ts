/**
 * Output to a closed pipe (`switchyard … | head`): the reader is gone, so the command ends
 * quietly with 141 (128 + SIGPIPE, what the shell reports for any Unix tool killed by a
 * closed pipe) instead of an EPIPE stack trace. A live run first stops its agents (it
 * registers an abort with {@link onOutputClosed}); every other command ends at once.
 */
export const EXIT_PIPE_CLOSED = 141;

let closed = false;
let abortWork: (() => void) | undefined;

/** True once stdout or stderr hit a closed pipe. */
export const outputClosed = (): boolean => closed;

/** While `abort` is registered, a closed pipe calls it instead of exiting (returns the unregister). */
export function onOutputClosed(abort: () => void): () => void {
  abortWork = abort;
  return () => {
    if (abortWork === abort) abortWork = undefined;
  };
}

/** Installs the EPIPE handling on stdout and stderr (once, at start-up). */
export function handleClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      closed = true;
      if (abortWork) abortWork();
      else process.exit(EXIT_PIPE_CLOSED);
    });
  }
}
