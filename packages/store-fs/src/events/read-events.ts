import { readFileSync } from 'node:fs';
import { type RunEvent, runEventSchema } from '@switchyard/core/dry-run';

/** Events read back from a JSONL file, plus the line numbers of lines that did not parse. */
export interface ReadEventsResult {
  events: RunEvent[];
  skippedLines: number[];
}

/** Reads a persisted event file; a missing file is an empty stream. */
export function readEvents(file: string): ReadEventsResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { events: [], skippedLines: [] };
  }
  const events: RunEvent[] = [];
  const skippedLines: number[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      const parsed = runEventSchema.safeParse(JSON.parse(line));
      if (parsed.success) events.push(parsed.data);
      else skippedLines.push(index + 1);
    } catch {
      skippedLines.push(index + 1);
    }
  });
  return { events, skippedLines };
}
