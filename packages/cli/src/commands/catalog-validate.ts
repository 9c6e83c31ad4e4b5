import type { Catalog } from '@switchyard/catalog';
import { resolveCatalog } from '@switchyard/config';
import { type Problem, SwitchyardError } from '@switchyard/core';
import pc from 'picocolors';
import { EXIT } from '../exit-codes.js';
import { closestKnownAgent, isUnknownAgent, KNOWN_AGENTS } from '../known-agents.js';
import { printJson, printProblems } from '../output.js';
import { catalogCoverage, describeSource } from './catalog-summary.js';

interface ValidateOptions {
  executionCatalog?: string;
  skipCommandCheck?: boolean;
  json?: boolean;
}

/**
 * A warning per target whose `agent` no known CLI uses (`claude` for `claude-code`): no
 * classifier serves it, so its failures are classified only by the generic rules.
 */
function unknownAgents(catalog: Catalog, file: string | undefined): Problem[] {
  return Object.entries(catalog.targets)
    .filter(([, t]) => isUnknownAgent(t.agent))
    .map(([id, t]) => {
      const near = closestKnownAgent(t.agent);
      return {
        code: 'SY_CATALOG_INVALID' as const,
        severity: 'warning' as const,
        ...(file ? { file } : {}),
        path: `targets.${id}.agent`,
        message: `target "${id}": agent "${t.agent}" is not a known agent${near ? `; did you mean "${near}"?` : ''}`,
        hint: `known agents: ${KNOWN_AGENTS.map((a) => a.agent).join(', ')} (a plugin may serve others)`,
      };
    });
}

/** `switchyard catalog validate`: exit 0 with source, revision and coverage; exit 2 with every problem. */
export async function catalogValidate(opts: ValidateOptions): Promise<void> {
  const checkExecutables = !opts.skipCommandCheck;
  try {
    const resolved = await resolveCatalog({
      cwd: process.cwd(),
      env: process.env,
      checkExecutables,
      ...(opts.executionCatalog ? { flagPath: opts.executionCatalog } : {}),
    });
    const coverage = catalogCoverage(resolved.catalog);
    const warnings = [
      ...(resolved.warnings ?? []),
      ...unknownAgents(resolved.catalog, resolved.source.path),
    ];
    if (opts.json) {
      printJson({
        valid: true,
        source: resolved.source,
        revision: resolved.revision,
        commandCheck: checkExecutables ? 'checked' : 'skipped',
        coverage,
        ...(warnings.length > 0 ? { warnings } : {}),
      });
      return;
    }
    printProblems(warnings);
    const classes = Object.entries(coverage.targets.byClass)
      .map(([cls, n]) => `${n} ${cls}`)
      .join(', ');
    const stages = Object.entries(coverage.stages)
      .map(
        ([stage, s]) =>
          `${stage} ${s.routes}/${s.required}${s.windowed ? ` (${s.windowed} windowed)` : ''}`,
      )
      .join(', ');
    const out = [
      `${pc.green('✓')} execution catalog is valid`,
      `  source    ${describeSource(resolved.source)}`,
      `  revision  ${resolved.revision}`,
      `  targets   ${coverage.targets.total} (${classes}); commands ${checkExecutables ? 'executable on this machine' : 'not checked (--skip-command-check)'}`,
      `  routes    ${stages}`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } catch (error) {
    if (!SwitchyardError.is(error)) throw error;
    const problems: Problem[] =
      error.problems.length > 0
        ? error.problems
        : [
            {
              code: error.code,
              message: error.message,
              ...(error.file ? { file: error.file } : {}),
              ...(error.line ? { line: error.line } : {}),
              ...(error.hint ? { hint: error.hint } : {}),
            },
          ];
    if (opts.json) {
      printJson({ valid: false, code: error.code, file: error.file, problems });
    } else {
      printProblems(problems);
      const n = problems.length;
      process.stderr.write(
        `${pc.red('✗')} execution catalog${error.file ? ` ${error.file}` : ''} is invalid: ${n} problem${n === 1 ? '' : 's'}\n`,
      );
    }
    process.exitCode = EXIT.INVALID_INPUT;
  }
}
