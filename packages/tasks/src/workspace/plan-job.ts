import { readPlanSource, readPlanText } from '../task/parse-plan.js';
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
  const read = readPlanText(job.path, job.file);
  // A refused or unreadable plan: the caller reads it again to report the problem.
  if ('problem' in read) return key === undefined ? {} : { key };
  const json = JSON.stringify(
    readPlanSource(read.text, { file: job.file, followUp: job.followUp }),
  );
  return key === undefined ? { json } : { key, json };
}
