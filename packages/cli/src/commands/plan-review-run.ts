import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type CatalogTarget, findExecutable, selectCandidates } from '@switchyard/catalog';
import { hasConfigFile, loadProjectConfig, resolveCatalog } from '@switchyard/config';
import { isRouteId, planFileName, SwitchyardError, stateDir } from '@switchyard/core';
import { attemptEnvironment, fillTemplate, inheritedEnvironment } from '@switchyard/runner-kit';
import {
  loadWorkspace,
  type PlanReviewResult,
  type PlanUnderReview,
  parsePlanFindings,
  planReviewPrompt,
} from '@switchyard/tasks';
import {
  expandEnvironmentValue,
  findWorkspaceRoot,
  searchWorkspaceRoot,
  terminalText,
} from '@switchyard/utils';
import { execa } from 'execa';
import pc from 'picocolors';
import { printJson } from '../output.js';
import { permittedWithProjectPlugins } from '../permissions.js';

/** Options of `switchyard plan review`. */
export interface PlanReviewOptions {
  workspace?: string;
  executionCatalog?: string;
  with?: string;
  route?: string;
  json?: boolean;
}

/** A finished plan review: who reviewed, where the evidence is, what it found. */
export interface PlanReviewReport extends PlanReviewResult {
  target: string;
  route: string | null;
  plans: string[];
  findingsFile: string;
}

/** The plans to review: one file, or the current plan of every active task. */
function plansOf(plan: string | undefined, workspace: string): PlanUnderReview[] {
  if (plan !== undefined) {
    const file = resolve(plan);
    if (!existsSync(file))
      throw new SwitchyardError('SY_USAGE', `${file} does not exist.`, {
        file,
        hint: 'pass a plan file (plan.yaml or PLAN.md), or --workspace DIR',
      });
    return [{ path: relative(workspace, file) || file, text: readFileSync(file, 'utf8') }];
  }
  return loadWorkspace(workspace).tasks.map((t) => {
    const file = join(t.dir, planFileName(t.planLoop));
    return { path: relative(workspace, file), text: readFileSync(file, 'utf8') };
  });
}

/**
 * Runs the plan review: picks the target (`--with`, else the first installed candidate of
 * the review route), runs it once in the workspace with the prompt as `{prompt}` and the
 * findings file as `SWITCHYARD_REVIEW_FILE`, and reads the findings it wrote.
 */
export async function reviewPlans(
  plan: string | undefined,
  opts: PlanReviewOptions,
): Promise<PlanReviewReport> {
  const workspace = reviewWorkspace(plan, opts);
  const plans = plansOf(plan, workspace);
  if (plans.length === 0)
    throw new SwitchyardError('SY_USAGE', `No task plan to review in ${workspace}.`, {
      hint: 'write agent-task/<group>/<task>/PLAN.md first, or pass a plan file',
    });
  const { targetId, target, route } = await pickReviewer(workspace, opts);
  const findingsFile = await runReviewer(workspace, plans, targetId, target);
  return {
    target: targetId,
    route: opts.with ? null : route,
    plans: plans.map((p) => p.path),
    findingsFile,
    ...parsePlanFindings(readFileSync(findingsFile, 'utf8')),
  };
}

/** The workspace: a plan file's (found from its folder upward, else its folder), or the usual one. */
function reviewWorkspace(plan: string | undefined, opts: PlanReviewOptions): string {
  return plan !== undefined && opts.workspace === undefined
    ? (searchWorkspaceRoot(dirname(resolve(plan)), hasConfigFile).root ?? dirname(resolve(plan)))
    : findWorkspaceRoot({
        ...(opts.workspace !== undefined ? { explicit: opts.workspace } : {}),
        isMarker: hasConfigFile,
        // One plan file needs no agent-task/ (a YAML plan in a fresh repository).
        requireTasks: plan === undefined,
      });
}

/**
 * The reviewer: `--with`, else the first installed candidate of the review route, started with
 * the flags its `permissions` stand for, as in a run.
 */
async function pickReviewer(
  workspace: string,
  opts: PlanReviewOptions,
): Promise<{ targetId: string; target: CatalogTarget; route: string }> {
  const { config, filepath } = await loadProjectConfig(workspace);
  const written = await resolveCatalog({
    ...(opts.executionCatalog ? { flagPath: resolve(opts.executionCatalog) } : {}),
    env: process.env,
    cwd: workspace,
    checkExecutables: false,
  });
  const permitted = await permittedWithProjectPlugins(written, config, filepath);
  if (permitted.problems.length > 0)
    throw new SwitchyardError('SY_CATALOG_INVALID', 'A target cannot be given its permissions.', {
      problems: permitted.problems,
    });
  const catalog = permitted.resolved.catalog;
  const route = opts.route ?? config.routing.complexity.standard;
  let targetId = opts.with;
  if (targetId === undefined) {
    if (!isRouteId(route))
      throw new SwitchyardError('SY_USAGE', `--route ${route} is not a route id.`, {
        hint: 'use one of local-G01…local-G10, cloud-G01…cloud-G10',
      });
    const { candidates } = selectCandidates(catalog, 'review', route, new Date());
    targetId = candidates.find((id) =>
      findExecutable(catalog.targets[id]?.runtime.command[0] ?? '', process.env, workspace),
    );
    if (!targetId)
      throw new SwitchyardError(
        'SY_CATALOG_NOT_EXECUTABLE',
        `No candidate of review route ${route} is installed here (${candidates.join(', ') || 'none now'}).`,
        { hint: 'install one, or pass --with TARGET / --route ID' },
      );
  }
  const target: CatalogTarget | undefined = catalog.targets[targetId];
  if (!target)
    throw new SwitchyardError(
      'SY_USAGE',
      `--with names target "${targetId}", which the catalog does not define.`,
      {
        hint: `Known targets: ${Object.keys(catalog.targets).join(', ')}.`,
      },
    );
  return { targetId, target, route };
}

/**
 * Runs the reviewer once in the workspace, the prompt as `{prompt}` and the findings file as
 * `SWITCHYARD_REVIEW_FILE`, its evidence in a plan-reviews folder; returns the findings file.
 */
async function runReviewer(
  workspace: string,
  plans: PlanUnderReview[],
  targetId: string,
  target: CatalogTarget,
): Promise<string> {
  const id = `plan-review.${Date.now().toString(36)}.${randomUUID().slice(0, 8)}`;
  const dir = join(stateDir(workspace), 'plan-reviews', id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const findingsFile = join(dir, 'findings.md');
  const prompt = planReviewPrompt(plans);
  writeFileSync(join(dir, 'prompt.md'), prompt);
  const argv = fillTemplate(target.runtime.command, {
    agent: target.agent,
    model: target.model,
    target_id: targetId,
    workspace,
    attempt_dir: dir,
    prompt,
  });
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.runtime.environment ?? {}))
    env[name] = expandEnvironmentValue(value, process.env).value;
  Object.assign(
    env,
    attemptEnvironment({
      attemptId: id,
      role: 'plan-review',
      workspace,
      attemptDir: dir,
      targetId,
    }),
    { SWITCHYARD_REVIEW_FILE: findingsFile },
  );
  const result = await execa(argv[0]!, argv.slice(1), {
    cwd: workspace,
    // The reviewer is an agent: it inherits what agents inherit, never the store's URL.
    env: { ...inheritedEnvironment(), ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    all: true,
  });
  writeFileSync(join(dir, 'output.log'), String(result.all ?? ''));
  if (result.failed || !existsSync(findingsFile)) {
    const why = result.failed
      ? `exited ${result.exitCode ?? result.signal ?? 'abnormally'}`
      : 'wrote no findings file';
    throw new SwitchyardError('SY_RUNNER_SPAWN', `The plan reviewer ${targetId} ${why}.`, {
      file: join(dir, 'output.log'),
      hint: `see ${join(dir, 'output.log')}; retry, or pick another reviewer with --with TARGET`,
    });
  }
  return findingsFile;
}

/** Human lines of a plan review. */
export function renderPlanReview(r: PlanReviewReport): string {
  const paint = { CRITICAL: pc.red, MODERATE: pc.yellow, MINOR: pc.dim } as const;
  return `${[
    `plan review of ${r.plans.length} plan(s) by ${r.target}${r.route ? ` (review route ${r.route})` : ''}: ${r.counts.critical} critical, ${r.counts.moderate} moderate, ${r.counts.minor} minor`,
    ...r.findings.map(
      (f) => `  ${paint[f.severity](f.severity.padEnd(8))}  ${terminalText(f.text)}`,
    ),
    `  findings: ${r.findingsFile}`,
  ].join('\n')}\n`;
}

/** `switchyard plan review`: advisory, exit 0 whatever the findings. */
export async function planReviewCommand(
  plan: string | undefined,
  opts: PlanReviewOptions,
): Promise<void> {
  const report = await reviewPlans(plan, opts);
  if (opts.json) printJson(report);
  else process.stdout.write(renderPlanReview(report));
}
