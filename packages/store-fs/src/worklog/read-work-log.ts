import { readFileSync } from 'node:fs';
import { workLogPath } from './work-log.js';

/** The text of a group's active work log, or undefined when it has none (or cannot be read). */
export function readWorkLogText(workspace: string, group: string): string | undefined {
  try {
    return readFileSync(workLogPath(workspace, group), 'utf8');
  } catch {
    return undefined;
  }
}
