import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { TaskState } from '@switchyard/core';
import {
  type FailureBundle,
  failureBundleSchema,
  type InterviewRequest,
  interviewRequestSchema,
  type ResolutionAction,
} from '@switchyard/core';
import { ensureOwnedDir, readJsonFile, replaceFile } from '@switchyard/utils';

/** Folder of the escalation files under the state dir. */
export const ESCALATIONS_DIR = 'escalations';
const BUNDLE_SUFFIX = '.failure-bundle.json';
const INTERVIEW_SUFFIX = '.interview-request.json';

/** Paths of a task's escalation files. */
export function escalationPaths(
  stateDir: string,
  task: string,
): { bundle: string; interview: string } {
  const base = join(stateDir, ESCALATIONS_DIR, task);
  return { bundle: `${base}${BUNDLE_SUFFIX}`, interview: `${base}${INTERVIEW_SUFFIX}` };
}

/**
 * Writes both files crash-safely (temp file, fsync, rename): a reader sees a whole bundle or
 * none. The bundle goes last, so a bundle on disk always has its interview request.
 */
export async function writeEscalation(
  stateDir: string,
  bundle: FailureBundle,
  interview: InterviewRequest,
): Promise<void> {
  const paths = escalationPaths(stateDir, bundle.task.id);
  ensureOwnedDir(stateDir, dirname(paths.bundle));
  await replaceFile(paths.interview, `${JSON.stringify(interview, null, 2)}\n`, { durable: true });
  await replaceFile(paths.bundle, `${JSON.stringify(bundle, null, 2)}\n`, { durable: true });
}

/** A task's failure bundle, or undefined when it has none. */
export function readBundle(stateDir: string, task: string): FailureBundle | undefined {
  return readJsonFile(escalationPaths(stateDir, task).bundle, failureBundleSchema, ESCALATION_FILE);
}

/** True when the bundle describes the task's current block and nobody resolved it. */
export function isOpen(bundle: FailureBundle, state: TaskState | undefined): boolean {
  return (
    bundle.resolution === undefined &&
    state?.blocked !== undefined &&
    state.blocked.at === bundle.blockedAt
  );
}

/** An open escalation, as `status` and the monitor list it. */
export interface EscalationEntry {
  task: string;
  code: string;
  class?: string;
  stage: string;
  reason: string;
  question: string;
  since: string;
  blockedDownstream: string[];
  /** Workspace-relative path of the failure bundle. */
  bundle: string;
  /** Workspace-relative path of the interview request. */
  interview: string;
}

/** The list entry of an open escalation; `where`: its files, relative to the workspace. */
export function escalationEntry(
  task: string,
  bundle: FailureBundle,
  where: { bundle: string; interview: string },
): EscalationEntry {
  return {
    task,
    code: bundle.failure.code,
    ...(bundle.failure.class ? { class: bundle.failure.class } : {}),
    stage: bundle.failure.stage,
    reason: bundle.failure.reason,
    question: bundle.question,
    since: bundle.blockedAt,
    blockedDownstream: bundle.blockedDownstream,
    bundle: where.bundle,
    interview: where.interview,
  };
}

/** Every open escalation of a workspace (sorted by task), given the tasks' states. */
export function listOpenEscalations(
  workspace: string,
  stateDir: string,
  states: readonly TaskState[],
): EscalationEntry[] {
  const byTask = new Map(states.map((s) => [s.task, s]));
  const out: EscalationEntry[] = [];
  const root = join(stateDir, ESCALATIONS_DIR);
  let groups: string[];
  try {
    groups = readdirSync(root);
  } catch {
    return out;
  }
  for (const group of groups.sort()) {
    let names: string[];
    try {
      names = readdirSync(join(root, group));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (!name.endsWith(BUNDLE_SUFFIX)) continue;
      const task = `${group}/${name.slice(0, -BUNDLE_SUFFIX.length)}`;
      let bundle: FailureBundle | undefined;
      try {
        bundle = readBundle(stateDir, task);
      } catch {
        continue; // a damaged bundle is not an escalation; the next run rewrites it
      }
      if (!bundle || !isOpen(bundle, byTask.get(task))) continue;
      const paths = escalationPaths(stateDir, task);
      out.push(
        escalationEntry(task, bundle, {
          bundle: relative(workspace, paths.bundle),
          interview: relative(workspace, paths.interview),
        }),
      );
    }
  }
  return out;
}

/** Records a human's answer in both files (atomically, bundle last). */
export async function recordResolution(
  stateDir: string,
  task: string,
  action: ResolutionAction,
  now: Date,
  by?: string,
  note?: string,
): Promise<void> {
  const paths = escalationPaths(stateDir, task);
  const bundle = readBundle(stateDir, task);
  if (!bundle) return;
  const resolution = {
    action,
    at: now.toISOString(),
    ...(by ? { by } : {}),
    ...(note ? { note } : {}),
  };
  const interview = readJsonFile(paths.interview, interviewRequestSchema, ESCALATION_FILE);
  if (interview) {
    await replaceFile(
      paths.interview,
      `${JSON.stringify({ ...interview, resolution }, null, 2)}\n`,
      { durable: true },
    );
  }
  await replaceFile(paths.bundle, `${JSON.stringify({ ...bundle, resolution }, null, 2)}\n`, {
    durable: true,
  });
}

const ESCALATION_FILE = {
  what: 'escalation file',
  hint: 'It is written atomically, so it was edited by hand. Delete it: the next run writes it again for a task that is still blocked.',
};
