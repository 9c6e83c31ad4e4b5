// Loads the recorded real-CLI captures for fixture-driven classifier tests.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Capture {
  agent: string;
  cli: string;
  version: string;
  /** Capture variant of the CLI's argv, e.g. `router` (Gemini CLI without `-m`). */
  variant?: string;
  mode: 'text' | 'jsonl';
  fault: string;
  argv: string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled?: boolean;
  elapsedMs: number;
  stdout: string;
  stderr: string;
}

/** The class each injected fault must produce, for every CLI. */
export const EXPECTED_CLASS: Record<string, string> = {
  none: 'success',
  'rate-limit': 'provider-quota',
  quota: 'provider-quota',
  overloaded: 'model-unavailable',
  'prompt-too-long': 'context-limit',
  'unknown-model': 'model-unavailable',
  unauthorized: 'generic-error',
  'server-error': 'provider-connection',
  'stream-cut': 'provider-stream-disconnect',
  'connection-refused': 'provider-connection',
  hang: 'process-termination',
};

export const FIXTURES_DIR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** A captured CLI release line: `fixtures/<agent>/<version>[+<variant>]/`. */
export interface ReleaseLine {
  agent: string;
  /** Folder name: the version, plus `+<variant>` for a variant's captures. */
  line: string;
  captures: Capture[];
}

/** Every release line captured for `agent`, oldest version first. */
export function loadReleaseLines(agent: string): ReleaseLine[] {
  const dir = join(FIXTURES_DIR, agent);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((line) => ({
      agent,
      line,
      captures: readdirSync(join(dir, line))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => JSON.parse(readFileSync(join(dir, line, f), 'utf8')) as Capture),
    }));
}

/** Every capture of `agent`, all release lines. */
export function loadCaptures(agent: string): Capture[] {
  return loadReleaseLines(agent).flatMap((l) => l.captures);
}
