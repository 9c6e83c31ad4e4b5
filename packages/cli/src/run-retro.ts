import type { PriceTable } from '@switchyard/config';
import type { EventLogPort, RunEvent } from '@switchyard/core';
import { buildRetro, writeRetroFile } from '@switchyard/engine';

/** Every event of a store's log, in order. */
export async function allEvents(log: Pick<EventLogPort, 'read'>) {
  return (await log.read()).events.map((stored) => stored.event);
}

/**
 * Writes the retrospective of the run that just ended (`runId`, or the last run of the event
 * log) to `agent-task/retros/<date>-<run>.md`. A failure to write it never changes the run's
 * exit code: it is reported on stderr, the events it is built from stay.
 */
export async function writeRunRetro(
  workspace: string,
  log: Pick<EventLogPort, 'read'>,
  prices: PriceTable,
  runId?: string,
): Promise<string | undefined> {
  try {
    const scope = runId ? { runId } : {};
    return writeRetroFile(workspace, buildRetro(await allEvents(log), scope, prices));
  } catch (error) {
    process.stderr.write(
      `switchyard: the retrospective was not written (${error instanceof Error ? error.message : String(error)}); run \`switchyard retro\` to see it\n`,
    );
    return undefined;
  }
}

/**
 * The default runs of `retro --store`: on a shared backlog machines run side by side, so
 * "the last run" is every run that was still going when the last one started (its `since`).
 */
export function sharedRetroSince(events: readonly RunEvent[]): string | undefined {
  const starts = events.filter((e) => e.type === 'run.started');
  const last = starts.at(-1);
  if (!last) return undefined;
  const ended = new Map(
    events.filter((e) => e.type === 'run.finished').map((e) => [e.runId, Date.parse(e.at)]),
  );
  const from = Date.parse(last.at);
  const overlapping = starts.filter(
    (e) => (ended.get(e.runId) ?? Number.POSITIVE_INFINITY) >= from,
  );
  return overlapping[0]?.at;
}
