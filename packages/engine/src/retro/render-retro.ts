import { join } from 'node:path';
import { agentTaskDir } from '@switchyard/core';
import { formatUsd as usd } from '@switchyard/runner-kit';
import { ensureOwnedDir, writeOwnedFile } from '@switchyard/utils';
import type { Retro } from './retro-types.js';

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cls = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k} ×${v}`)
    .join(', ') || '-';

/** The retrospective as Markdown (the file under `agent-task/retros/` and the terminal view). */
export function renderRetro(retro: Retro): string {
  const t = retro.totals;
  const out = [
    `# Retrospective: ${retro.runs.join(', ') || 'no run'}`,
    '',
    `${retro.from ?? '-'} → ${retro.to ?? '-'}: ${retro.tasks.length} task(s), ${t.archived} archived, ${t.blocked} blocked, ${t.attempts} attempt(s), ${t.tokens} tokens, ${usd(t.costUsd)}.`,
    '',
    '## Tasks',
    '',
    '| task | outcome | attempts | failovers | failure classes | plan loops | findings C/M/m | gate failures | duration | tokens | cost |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...retro.tasks.map(
      (x) =>
        `| ${x.task} | ${x.outcome} | ${x.attempts} | ${x.failovers} | ${cls(x.failureClasses)} | ${x.planLoops} | ${x.findings.critical}/${x.findings.moderate}/${x.findings.minor} | ${x.gateFailures} | ${secs(x.durationMs)} | ${x.tokens} | ${usd(x.costUsd)} |`,
    ),
    '',
    // On a shared store: which machine ran each task's attempts.
    ...(retro.tasks.some((x) => x.machines)
      ? [
          '## Machines',
          '',
          '| task | attempts by machine |',
          '| --- | --- |',
          ...retro.tasks.map((x) => `| ${x.task} | ${cls(x.machines ?? {})} |`),
          '',
        ]
      : []),
    '## Targets',
    '',
    '| target | attempts | success rate | failure classes | mean duration | cost | cost per archived task |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...retro.targets.map(
      (g) =>
        `| ${g.target} | ${g.attempts} | ${Math.round(g.successRate * 100)} % (${g.succeeded}/${g.attempts}) | ${cls(g.failureClasses)} | ${secs(g.meanDurationMs)} | ${usd(g.costUsd)} | ${g.costPerArchivedTaskUsd === undefined ? '-' : usd(g.costPerArchivedTaskUsd)} |`,
    ),
    '',
    '## Suggestions',
    '',
    ...(retro.suggestions.length === 0
      ? ['- none: no figure of this run calls for a change.']
      : retro.suggestions.map((s) => `- ${s.text} [${s.figures}]`)),
    '',
  ];
  return out.join('\n');
}

/**
 * Writes `agent-task/retros/<date>-<run>.md` (the run's start date) and returns its path, or
 * undefined when the retro covers no run.
 */
export function writeRetroFile(workspace: string, retro: Retro): string | undefined {
  const run = retro.runs.at(-1);
  if (!run || !retro.from) return undefined;
  const dir = join(agentTaskDir(workspace), 'retros');
  ensureOwnedDir(workspace, dir);
  const file = join(dir, `${retro.from.slice(0, 10)}-${run}.md`);
  writeOwnedFile(file, renderRetro(retro), 'replace');
  return file;
}
