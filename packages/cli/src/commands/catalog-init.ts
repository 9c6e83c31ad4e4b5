import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import {
  type Catalog,
  catalogRevision,
  compactCatalog,
  validateCatalog,
} from '@switchyard/catalog';
import { RECOMMENDED_CONFIG_FILE } from '@switchyard/config';
import { SwitchyardError } from '@switchyard/core';
import { assetPath } from '@switchyard/utils';
import pc from 'picocolors';
import { type DetectedAgent, detectAgents } from '../known-agents.js';
import { printJson } from '../output.js';
import { readableJson } from '../readable-json.js';
import { type DerivedCatalog, deriveCatalog } from './catalog-derive.js';
import { describeRoutes, ROUTE_IDS_EXPLAINED } from './route-ids.js';

interface InitOptions {
  output: string;
  force?: boolean;
  json?: boolean;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * `switchyard catalog init`: the bundled default narrowed to the agent CLIs installed here
 * (a local route never gets a cloud target); with none installed, the whole default as a
 * template to finish. Writes `$schema` for editors. Exit 0 either way.
 */
export async function catalogInit(opts: InitOptions): Promise<void> {
  const cwd = process.cwd();
  const output = resolve(cwd, opts.output);
  if (!opts.force && (await exists(output))) {
    throw new SwitchyardError('SY_USAGE', `${output} already exists.`, {
      file: output,
      hint: 'pass --force to overwrite it, or --output to write elsewhere',
    });
  }
  const { agents, derived, template } = await detectInstalledCatalog(cwd);
  const body: Catalog = derived?.catalog ?? template;
  const { revision } = await writeCatalogFile(output, body);
  const rel = relative(cwd, output) || output;
  const reference = rel.startsWith('.') || rel.startsWith('/') ? rel : `./${rel}`;
  if (opts.json) {
    printJson({
      path: output,
      revision,
      template: !derived,
      agents: agents.map(({ agent, command, path, version }) => ({
        agent,
        command,
        installed: Boolean(path),
        ...(path ? { path } : {}),
        ...(version ? { version } : {}),
      })),
      kept: derived?.kept ?? [],
      dropped: derived?.dropped ?? [],
      filled: derived?.filled ?? [],
      placeholders: derived?.placeholders ?? Object.keys(template.targets),
    });
    return;
  }
  process.stdout.write(
    `${report(output, revision, agents, derived, body, reference).join('\n')}\n`,
  );
}

/**
 * How to check the written catalog. With targets whose commands are not installed here
 * (placeholders, or a whole template), a plain `catalog validate` would refuse them: it also
 * checks every command is installed. So the advice names the flag and says when to drop it.
 */
function validateAdvice(derived: DerivedCatalog | undefined, reference: string): string[] {
  const uninstalled = derived ? derived.placeholders : ['(every target)'];
  if (uninstalled.length === 0)
    return [`Check it with: switchyard catalog validate --execution-catalog ${reference}`];
  return [
    `Check it with: switchyard catalog validate --execution-catalog ${reference} --skip-command-check`,
    `  (${derived ? `the placeholder targets ${uninstalled.join(', ')} have` : 'its targets have'} no installed command here, and`,
    '  validate checks commands unless told not to; drop the flag once they are installed.',
    '  A run only needs an installed candidate on each route its tasks use.)',
  ];
}

function report(
  output: string,
  revision: string,
  agents: DetectedAgent[],
  derived: DerivedCatalog | undefined,
  catalog: Catalog,
  reference: string,
): string[] {
  const found = agents.map(
    (a) =>
      `    ${a.command.padEnd(8)} ${a.path ? `${pc.green('found')}  ${a.version ?? '(version unknown)'}` : pc.dim('not installed')}`,
  );
  const head = derived
    ? [`${pc.green('✓')} wrote ${output}`]
    : [
        `${pc.yellow('!')} wrote ${output} as a template: no agent CLI is installed here`,
        `  Install one of ${agents.map((a) => a.command).join(', ')} (on PATH) and run`,
        '  "switchyard catalog init --force" to narrow it to what is installed, or edit its',
        '  targets by hand. Until then runs refuse every route (no installed candidate).',
      ];
  const lines = [...head, '  agent CLIs', ...found, `  revision  ${revision}`];
  if (derived) {
    lines.push(
      `  targets   ${derived.kept.join(', ')}`,
      `  dropped   ${derived.dropped.length ? `${derived.dropped.join(', ')} ${pc.dim('(command not installed here)')}` : 'none'}`,
      `  refilled  ${derived.filled.length ? `${derived.filled.length} route list(s) whose candidates were all missing` : 'none'}`,
    );
    if (derived.placeholders.length > 0)
      lines.push(
        `  ${pc.yellow('placeholders')} ${derived.placeholders.join(', ')} ${pc.dim('(local targets, not installed)')}`,
        '    No local agent is installed, and a local route never gets a cloud target: the',
        '    local-* routes keep these. Install one (a local OpenAI-compatible server and qwen,',
        '    or codex --oss) or edit them; until then tasks on local-* routes are refused.',
      );
  }
  lines.push(
    '',
    ...ROUTE_IDS_EXPLAINED,
    ...describeRoutes(catalog),
    '',
    `Use it from your project config, ${RECOMMENDED_CONFIG_FILE} in the workspace root:`,
    `  { "executionCatalog": "${reference}" }`,
    `or per run: --execution-catalog ${reference}, or AGENT_TASK_EXECUTION_CATALOG=${reference}`,
    ...validateAdvice(derived, reference),
  );
  return lines;
}

/** The bundled default catalog, the agent CLIs found here, and the catalog narrowed to them
 * (undefined when none is installed; `template` is the whole default then). */
export async function detectInstalledCatalog(cwd: string): Promise<{
  agents: DetectedAgent[];
  derived: DerivedCatalog | undefined;
  template: Catalog;
}> {
  const bundledPath = assetPath('default-execution-catalog.json');
  const bundled = validateCatalog(JSON.parse(await readFile(bundledPath, 'utf8')), {
    file: bundledPath,
    checkExecutables: false,
  });
  if (!bundled.catalog) {
    throw new SwitchyardError('SY_INTERNAL', 'The bundled default catalog is invalid.', {
      problems: bundled.problems,
    });
  }
  const agents = await detectAgents(process.env, cwd);
  const installed = new Set(agents.filter((a) => a.path).map((a) => a.command));
  const derived = deriveCatalog(bundled.catalog, (_id, t) =>
    installed.has(t.runtime.command[0] ?? ''),
  );
  const { $schema: _bundledSchema, ...template } = bundled.catalog;
  return { agents, derived, template };
}

/**
 * Validates and writes a catalog with a `$schema` reference for editors; its revision. The
 * compact form writes each shared route once (`compactCatalog`); its revision is the same.
 */
export async function writeCatalogFile(
  output: string,
  body: Catalog,
  form: 'full' | 'compact' = 'full',
): Promise<{ revision: string; catalog: Catalog }> {
  // The schema ships with the installed package; the path is relative to the written file.
  const schemaFile = assetPath(
    'schema',
    form === 'compact' ? 'execution-catalog-compact.schema.json' : 'execution-catalog.schema.json',
  );
  const schemaRel = relative(dirname(output), schemaFile);
  const schemaPath =
    schemaRel.split('/').filter((p) => p === '..').length <= 2 ? schemaRel : schemaFile;
  const { $schema: _earlier, ...content } = body;
  const written = {
    $schema: schemaPath,
    ...(form === 'compact' ? compactCatalog(content as Catalog) : content),
  };
  const check = validateCatalog(written, { file: output, checkExecutables: false });
  if (!check.catalog) {
    throw new SwitchyardError('SY_INTERNAL', 'The derived catalog failed validation.', {
      problems: check.problems,
    });
  }
  await mkdir(dirname(output), { recursive: true, mode: 0o700 });
  await writeFile(output, readableJson(written));
  return { revision: catalogRevision(check.catalog), catalog: check.catalog };
}
