import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type EscalationPort, interviewRequestSchema } from '@switchyard/core';
import { readJsonFile } from '@switchyard/utils';
import {
  escalationPaths,
  readBundle,
  recordResolution,
  writeEscalation,
} from './escalation/escalation-store.js';
import type { FsLeases } from './fs-leases.js';

const BUNDLE_SUFFIX = '.failure-bundle.json';
const ESCALATION_FILE = {
  what: 'escalation file',
  hint: 'It is written atomically, so it was edited by hand. Delete it: the next run writes it again for a task that is still blocked.',
};

/**
 * Escalations as before: `escalations/<group>/<task>.failure-bundle.json` and
 * `.interview-request.json`, each replaced atomically and fsynced, the bundle last.
 */
export function fsEscalations(
  workspace: string,
  stateDir: string,
  escalationsDir: string,
  leases: FsLeases,
): EscalationPort {
  return {
    async put(bundle, interview, options) {
      leases.check(options?.fence);
      await writeEscalation(stateDir, bundle, interview);
    },
    async get(task) {
      const bundle = readBundle(stateDir, task);
      if (!bundle) return undefined;
      const interview = readJsonFile(
        escalationPaths(stateDir, task).interview,
        interviewRequestSchema,
        ESCALATION_FILE,
      );
      return { bundle, ...(interview ? { interview } : {}) };
    },
    async tasks() {
      const out: string[] = [];
      for (const group of list(escalationsDir).sort())
        for (const name of list(join(escalationsDir, group)).sort())
          if (name.endsWith(BUNDLE_SUFFIX))
            out.push(`${group}/${name.slice(0, -BUNDLE_SUFFIX.length)}`);
      return out;
    },
    async resolve(task, action, at, by, note) {
      await recordResolution(stateDir, task, action, at, by, note);
    },
    locate(task) {
      const paths = escalationPaths(stateDir, task);
      return {
        bundle: relative(workspace, paths.bundle),
        interview: relative(workspace, paths.interview),
      };
    },
  };
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
