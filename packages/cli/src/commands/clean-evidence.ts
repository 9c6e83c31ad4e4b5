import { SwitchyardError } from '@switchyard/core/errors';
import type { PruneEvidenceReport } from '@switchyard/runner-kit';

const AGE_UNITS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `14d`, `12h`, `30m`, `90s`, `2w` → milliseconds; SY_USAGE otherwise. */
export function parseAge(text: string): number {
  const match = /^(\d+)\s*([smhdw])$/i.exec(text.trim());
  if (!match)
    throw new SwitchyardError('SY_USAGE', `--evidence-older-than ${text}: not an age.`, {
      hint: 'write a number and a unit: s, m, h, d or w (e.g. 14d)',
    });
  return Number(match[1]) * (AGE_UNITS[(match[2] as string).toLowerCase()] as number);
}

/** `500MB`, `2GiB`, `1048576` → bytes; SY_USAGE otherwise. */
function parseSize(text: string, parseByteSize: (text: string) => number | undefined): number {
  const bytes = parseByteSize(text);
  if (bytes === undefined)
    throw new SwitchyardError('SY_USAGE', `--evidence-max-size ${text}: not a size.`, {
      hint: 'write a number and a unit: B, KB, MB, GB (1000-based) or KiB, MiB, GiB (e.g. 500MB)',
    });
  return bytes;
}

/** Prunes old failed-attempt evidence of the workspace; the report for `clean`'s output. */
export async function cleanEvidence(
  workspace: string,
  opts: { olderThan?: string; maxSize?: string; dryRun: boolean },
): Promise<PruneEvidenceReport> {
  const { stateDir } = await import('@switchyard/core');
  const { parseByteSize } = await import('@switchyard/utils');
  const { pruneAttemptEvidence } = await import('@switchyard/runner-kit');
  const { openFsStore } = await import('@switchyard/store-fs');
  const store = openFsStore({ workspace });
  const states = await store.tasks.list().finally(() => store.close());
  return pruneAttemptEvidence({
    stateDir: stateDir(workspace),
    states: states.map((s) => s.value),
    ...(opts.olderThan !== undefined ? { olderThanMs: parseAge(opts.olderThan) } : {}),
    ...(opts.maxSize !== undefined
      ? { maxTotalBytes: parseSize(opts.maxSize, parseByteSize) }
      : {}),
    dryRun: opts.dryRun,
  });
}
