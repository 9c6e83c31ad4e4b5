import { join } from 'node:path';
import {
  buildRetro,
  type PriceTable,
  readEvents,
  stateDir,
  writeRetroFile,
} from '@switchyard/core';

/**
 * Writes the retrospective of the run that just ended (the last run of the event log) to
 * `agent-task/retros/<date>-<run>.md`. A failure to write it never changes the run's exit
 * code: it is reported on stderr, the events it is built from stay.
 */
export function writeRunRetro(workspace: string, prices: PriceTable): string | undefined {
  try {
    const { events } = readEvents(join(stateDir(workspace), 'events.jsonl'));
    return writeRetroFile(workspace, buildRetro(events, {}, prices));
  } catch (error) {
    process.stderr.write(
      `switchyard: the retrospective was not written (${error instanceof Error ? error.message : String(error)}); run \`switchyard retro\` to see it\n`,
    );
    return undefined;
  }
}
