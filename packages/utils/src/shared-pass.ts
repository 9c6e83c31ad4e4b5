/** Options of {@link sharedPass}. */
export interface SharedPassOptions {
  /**
   * Turns of the event loop a pass waits after the last one before it starts: the requests
   * made meanwhile share it. A turn is as long as the work the process has to do: on an idle
   * process the wait costs next to nothing; on a busy one, whose CPU the passes cost, it
   * gathers the requests of attempts that end close together.
   */
  gapTurns: number;
}

const turn = () => new Promise<void>((done) => setImmediate(done));

/**
 * One pass at a time over something every request needs a fresh look at (the processes on
 * the machine, the files of a workspace), shared by the requests it can answer: a request is
 * answered by the first pass that starts after it was made, so it sees everything that
 * happened before it asked. Requests made in the same turn of the event loop, while a pass
 * runs, or in the gap after one, share the next pass. `pass` gets the requests it answers.
 */
export function sharedPass<R, T>(
  pass: (requests: readonly R[]) => Promise<T>,
  options: SharedPassOptions,
): (request: R) => Promise<T> {
  let waiting: { request: R; resolve: (value: T) => void; reject: (error: unknown) => void }[] = [];
  let busy = false;

  const runWaiting = async (): Promise<void> => {
    while (waiting.length > 0) {
      // Taken as the pass starts: every request in it was made before.
      const batch = waiting;
      waiting = [];
      try {
        const value = await pass(batch.map((w) => w.request));
        for (const w of batch) w.resolve(value);
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
      for (let i = 0; i < options.gapTurns; i++) await turn();
    }
    busy = false;
  };

  return (request) =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ request, resolve, reject });
      if (busy) return;
      busy = true;
      // The requests of the same turn share the first pass too.
      setImmediate(() => void runWaiting());
    });
}
