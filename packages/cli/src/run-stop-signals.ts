import { onOutputClosed } from './closed-pipe.js';

/** How a run is asked to stop, and the end of listening for it. */
export interface RunStop {
  /** Aborted by the first SIGINT/SIGTERM, or when the reader of stdout left. */
  abort: AbortController;
  /** Aborted by a second SIGINT/SIGTERM: the apply under way is rolled back too. */
  abortApply: AbortController;
  /** Stops listening for the signals and the closed pipe. */
  off(): void;
}

/**
 * Listens for SIGINT/SIGTERM and a closed stdout. A first signal stops admissions, agents and
 * gates and lets the apply under way finish; a second one aborts that apply too (rolled back
 * through its journal).
 */
export function listenForStop(): RunStop {
  const abort = new AbortController();
  const abortApply = new AbortController();
  const onSignal = () => (abort.signal.aborted ? abortApply.abort() : abort.abort());
  // `on`, not `once`: execa's signal-exit handler re-raises the signal (killing the process
  // before the agents are stopped and the state persisted) when it finds itself the only
  // listener left, which a consumed `once` listener would make it.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `switchyard run --json | head`: the reader left; stop the agents and end like an interrupt.
  const offPipe = onOutputClosed(() => abort.abort());
  return {
    abort,
    abortApply,
    off: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      offPipe();
    },
  };
}
