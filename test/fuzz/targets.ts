// The parsers under fuzz, called in-process as the CLI calls them, and the contract each must
// keep on any input: return (accepting, or refusing with problems) or throw a coded
// SwitchyardError; every problem and error carries a code (never SY_INTERNAL), a message and
// where it is (a line or a JSON path). Anything else is a crash, thrown as `FuzzCrash`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Catalog } from '@switchyard/catalog';
import { loadProjectConfig, resolveCatalog } from '@switchyard/config';
import { type Problem, SwitchyardError } from '@switchyard/core';
import {
  checkRenderedPlans,
  convertMarkdownPlan,
  markdownProblem,
  materializePlan,
  parsePlan,
  validateOrchestratePlan,
  WriteSetResolver,
} from '@switchyard/tasks';
import { type FuzzKind, REPO } from './corpus.ts';

/** A broken contract: the parser threw something uncoded, or reported an unlocated problem. */
export class FuzzCrash extends Error {
  override name = 'FuzzCrash';
}

/** What a parser made of one input. */
export interface Outcome {
  accepted: boolean;
  /** Codes of the errors it reported (warnings left out). */
  codes: string[];
  /** The first errors (a thrown error first), where they are and what they say. */
  errors: { code: string; message: string; line?: number; path?: string }[];
}

const isError = (p: Problem) => p.severity !== 'warning';

/** A problem names its code and where: a line or a JSON path (YAML plans: a line), or its file. */
function checkProblem(p: Problem, where: string, needLine: boolean): void {
  const line = Number.isInteger(p.line) && (p.line as number) >= 1;
  const located = needLine
    ? line
    : line || typeof p.path === 'string' || typeof p.file === 'string';
  const ok =
    typeof p.code === 'string' &&
    /^SY_[A-Z_]+$/.test(p.code) &&
    p.code !== 'SY_INTERNAL' &&
    typeof p.message === 'string' &&
    p.message.length > 0 &&
    !p.message.includes('[object Object]') &&
    located;
  if (!ok)
    throw new FuzzCrash(`${where}: a problem without code or location: ${JSON.stringify(p)}`);
}

const brief = (p: { code: string; message: string; line?: number; path?: string }) => ({
  code: p.code,
  message: p.message,
  ...(p.line !== undefined ? { line: p.line } : {}),
  ...(p.path !== undefined ? { path: p.path } : {}),
});

function problemsOutcome(problems: Problem[], where: string, needLine = false): Outcome {
  for (const p of problems) checkProblem(p, where, needLine);
  const errors = problems.filter(isError);
  return {
    accepted: errors.length === 0,
    codes: [...new Set(errors.map((p) => p.code))],
    errors: errors.slice(0, 5).map(brief),
  };
}

/**
 * A thrown error must be a coded SwitchyardError naming its file, a line or JSON path (or its
 * problems, which have them) and what to do (its hint, or each problem's): a syntax error
 * says on which line.
 */
function thrownOutcome(error: unknown, where: string): Outcome {
  if (!SwitchyardError.is(error) || error.code === 'SY_INTERNAL')
    throw new FuzzCrash(`${where}: threw ${(error as Error)?.stack ?? String(error)}`);
  // A missing or unreadable file is about the whole file: its path is the location.
  const wholeFile = error.code === 'SY_CATALOG_NOT_FOUND' || error.code === 'SY_ENVIRONMENT';
  const located =
    wholeFile || error.line !== undefined || error.path !== undefined || error.problems.length > 0;
  const hinted = error.hint || (error.problems.length > 0 && error.problems.every((p) => p.hint));
  if (!error.file || !located || !hinted)
    throw new FuzzCrash(
      `${where}: ${error.code} without its file, line/path or hint: ${error.message}`,
    );
  for (const p of error.problems) checkProblem(p, where, false);
  return {
    accepted: false,
    codes: [error.code],
    errors: [error, ...error.problems].slice(0, 5).map(brief),
  };
}

/** Scratch folders, a workspace with the file-system shapes write sets must handle. */
export interface Scratch {
  root: string;
  workspace: string;
  resolver: WriteSetResolver;
  catalog: Catalog;
}

export async function createScratch(): Promise<Scratch> {
  const root = mkdtempSync(join(tmpdir(), 'sy-fuzz-'));
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, 'src', 'app'), { recursive: true });
  mkdirSync(join(workspace, 'agent-task', 'g', 't'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'outside', 'victim.ts'), 'outside\n');
  writeFileSync(join(workspace, 'src', 'app', 'main.ts'), '');
  symlinkSync(join(root, 'outside'), join(workspace, 'out'));
  symlinkSync(join(workspace, 'src', 'app'), join(workspace, 'alias'));
  symlinkSync('/dev/zero', join(workspace, 'src', 'zero.ts'));
  execFileSync('mkfifo', [join(workspace, 'src', 'pipe.ts')]);
  const { catalog } = await resolveCatalog({
    cwd: REPO,
    flagPath: join(REPO, 'assets', 'default-execution-catalog.json'),
    env: {},
    checkExecutables: false,
  });
  return { root, workspace, resolver: new WriteSetResolver(workspace), catalog };
}

/** The catalog loader on a catalog file: read, strict JSON checks, schema, lint. */
export async function runCatalog(text: string, scratch: Scratch): Promise<Outcome> {
  const file = join(scratch.root, 'catalog.json');
  writeFileSync(file, text);
  try {
    const resolved = await resolveCatalog({
      cwd: scratch.root,
      flagPath: file,
      env: {},
      checkExecutables: false,
    });
    return problemsOutcome(resolved.warnings ?? [], 'catalog');
  } catch (error) {
    return thrownOutcome(error, 'catalog');
  }
}

/** The PLAN.md parser with its write-set checks on a real workspace. */
export function runPlan(text: string, scratch: Scratch, followUp = false): Outcome {
  try {
    // as read from a UTF-8 file: no lone surrogates
    const plan = parsePlan(text.toWellFormed(), {
      file: 'agent-task/g/t/PLAN.md',
      resolver: scratch.resolver,
      followUp,
    });
    return problemsOutcome(plan.problems, 'PLAN.md');
  } catch (error) {
    return thrownOutcome(error, 'PLAN.md');
  }
}

/**
 * The YAML plan loader as `switchyard run <plan>` uses it: a legacy markdown task file is
 * converted first; a valid plan is rendered to PLAN.md files (which must parse) and
 * materialized twice into a fresh workspace (the second time changes nothing).
 */
export function runYamlPlan(
  raw: string,
  name: string,
  scratch: Scratch,
  isolation: 'worktree' | 'none' = 'worktree',
): Outcome {
  const where = `YAML plan ${name}`;
  const text = raw.toWellFormed(); // as read from a UTF-8 file
  try {
    const markdown = /\.md$/.test(name);
    const converted = markdown ? convertMarkdownPlan(text, name) : undefined;
    const plan = validateOrchestratePlan(converted?.yaml ?? text, {
      file: name,
      catalog: scratch.catalog,
      isolation,
    });
    const problems = [
      ...(converted?.problems ?? []),
      ...(converted
        ? plan.problems.map((p) => markdownProblem(p, converted, name))
        : plan.problems),
    ];
    const outcome = problemsOutcome(problems, where, true);
    if (!outcome.accepted) return outcome;
    const rendered = problemsOutcome(
      checkRenderedPlans(plan, scratch.workspace),
      `${where} (rendered)`,
      true,
    );
    if (!rendered.accepted) return rendered;
    const target = mkdtempSync(join(scratch.root, 'materialize-'));
    try {
      const first = materializePlan(target, plan);
      problemsOutcome(first.problems, `${where} (materialized)`, true);
      const again = materializePlan(target, plan);
      if (again.problems.length > 0 || again.tasks.some((t) => t.status !== 'unchanged'))
        throw new FuzzCrash(
          `${where}: materializing twice changed something: ${JSON.stringify(again)}`,
        );
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
    return outcome;
  } catch (error) {
    if (error instanceof FuzzCrash) throw error;
    return thrownOutcome(error, where);
  }
}

const configDirs = new Map<string, string>();

/** Config loading (`switchyard.config.json|yaml`), then the catalog it names or holds inline. */
export async function runConfig(text: string, name: string, scratch: Scratch): Promise<Outcome> {
  const file = /\.ya?ml$/.test(name) ? 'switchyard.config.yaml' : 'switchyard.config.json';
  let dir = configDirs.get(file);
  if (!dir) {
    dir = join(scratch.root, `config-${configDirs.size}`);
    mkdirSync(join(dir, 'agent-task'), { recursive: true });
    writeFileSync(
      join(dir, 'catalog.json'),
      readFileSync(join(REPO, 'assets', 'demo', 'catalog.json')),
    );
    configDirs.set(file, dir);
  }
  writeFileSync(join(dir, file), text);
  try {
    const { config } = await loadProjectConfig(dir);
    if (config.executionCatalog === undefined) return { accepted: true, codes: [], errors: [] };
    const resolved = await resolveCatalog({ cwd: dir, env: {}, checkExecutables: false });
    return problemsOutcome(resolved.warnings ?? [], 'config');
  } catch (error) {
    return thrownOutcome(error, 'config');
  }
}

/** One input: its text, the file name it is read as, and how it is read. */
export interface FuzzInput {
  name: string;
  text: string;
  followUp?: boolean;
  isolation?: 'worktree' | 'none';
}

/** Runs an input through the parser of its kind. */
export function runInput(
  kind: FuzzKind,
  input: FuzzInput,
  scratch: Scratch,
): Outcome | Promise<Outcome> {
  switch (kind) {
    case 'catalogs':
      return runCatalog(input.text, scratch);
    case 'plans':
      return runPlan(input.text, scratch, input.followUp);
    case 'yamlPlans':
      return runYamlPlan(input.text, input.name, scratch, input.isolation);
    case 'configs':
      return runConfig(input.text, input.name, scratch);
  }
}
