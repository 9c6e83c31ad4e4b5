import type { EventLogPort, PriceTable } from '@switchyard/core';
import { buildRetro, writeRetroFile } from '@switchyard/engine';

/** Every event of a store's log, in order. */
export async function allEvents(log: Pick<EventLogPort, 'read'>) {
  return (await log.read()).events.map((stored) => stored.event);
}

/**
 * Writes the retrospective of the run that just ended (the last run of the event log) to
 * `agent-task/retros/<date>-<run>.md`. A failure to write it never changes the run's exit
 * code: it is reported on stderr, the events it is built from stay.
 */
export async function writeRunRetro(
  workspace: string,
  log: Pick<EventLogPort, 'read'>,
  prices: PriceTable,
): Promise<string | undefined> {
  try {
    return writeRetroFile(workspace, buildRetro(await allEvents(log), {}, prices));
  } catch (error) {
    process.stderr.write(
      `switchyard: the retrospective was not written (${error instanceof Error ? error.message : String(error)}); run \`switchyard retro\` to see it\n`,
    );
    return undefined;
  }
}
