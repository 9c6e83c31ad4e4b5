import { readFileSync } from 'node:fs';
import { readPlanSource } from '../task/parse-plan.js';
import { fileIdentity } from './file-identity.js';

/** One plan file to read and parse. */
export interface PlanJob {
  /** Absolute path. */
  path: string;
  /** Workspace-relative name used in problems. */
  file: string;
  /** A follow-up plan (`PLAN-2.md`…). */
  followUp: boolean;
}

/** A parsed plan as JSON text (the cache stores that text as is). */
export interface PlanJobResult {
  /** File identity taken before reading; undefined when the file could not be stat'ed. */
  key?: string;
  /** The {@link readPlanSource} result as JSON; undefined when the file could not be read. */
  json?: string;
}

/** Reads and parses one plan without touching shared state (runs on any thread). */
export function runPlanJob(job: PlanJob): PlanJobResult {
  const key = fileIdentity(job.path);
  let text: string;
  try {
    text = readFileSync(job.path, 'utf8');
  } catch {
    return key === undefined ? {} : { key }; // the caller re-reads it to report the error
  }
  const json = JSON.stringify(readPlanSource(text, { file: job.file, followUp: job.followUp }));
  return key === undefined ? { json } : { key, json };
}
