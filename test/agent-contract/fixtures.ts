// Loads the recorded real-CLI captures for fixture-driven classifier tests.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Capture {
  agent: string;
  cli: string;
  version: string;
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

export function loadCaptures(agent: string): Capture[] {
  const dir = join(FIXTURES_DIR, agent);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Capture);
}
