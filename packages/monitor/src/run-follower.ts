import { followPlans } from './follow.js';
import type { SnapshotReader } from './snapshot.js';

/** How often the store is read for changes while a page is open (ms). */
const STORE_POLL_MS = 250;

/** Options of {@link followRun}. */
export interface FollowRunOptions {
  workspace: string;
  reader: SnapshotReader;
  /** Whether a page is open: the store is polled only then. */
  watched: () => boolean;
  /** Something a page shows may have changed (`plans`: task folders came, went or moved). */
  onChange: (what: 'state' | 'plans') => void;
  /** Store poll period (default 250 ms) and the plan folders' fallback poll (default 1 s). */
  pollMs?: number;
}

/**
 * Follows a run for the pages: the store polled while a page is open (one read at a time:
 * what changed is read, and `onChange` tells the pages), and the task folders of this clone
 * watched. Returns the stop.
 */
export function followRun(options: FollowRunOptions): () => void {
  const { reader, onChange } = options;
  const stopPlans = followPlans(options.workspace, () => onChange('plans'), {
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
  });
  let polling = false;
  const storePoll = setInterval(() => {
    if (polling || !options.watched()) return;
    polling = true;
    void reader
      .refresh()
      .then(
        (changed) => changed && onChange('state'),
        () => onChange('state'), // the rebuild reports the failure to the pages
      )
      .finally(() => {
        polling = false;
      });
  }, options.pollMs ?? STORE_POLL_MS);
  storePoll.unref();
  return () => {
    stopPlans();
    clearInterval(storePoll);
  };
}
