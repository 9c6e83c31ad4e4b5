import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import {
  assetPath,
  catalogRevision,
  findExecutable,
  SwitchyardError,
  validateCatalog,
} from '@switchyard/core';
import pc from 'picocolors';
import { printJson } from '../output.js';
import { deriveCatalog } from './catalog-derive.js';

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

/** `switchyard catalog init`: the bundled default narrowed to the agent CLIs installed here. */
export async function catalogInit(opts: InitOptions): Promise<void> {
  const cwd = process.cwd();
  const output = resolve(cwd, opts.output);
  if (!opts.force && (await exists(output))) {
    throw new SwitchyardError('SY_USAGE', `${output} already exists.`, {
      file: output,
      hint: 'pass --force to overwrite it, or --output to write elsewhere',
    });
  }
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
  const derived = deriveCatalog(bundled.catalog, (_id, t) =>
    Boolean(findExecutable(t.runtime.command[0] ?? '', process.env, cwd)),
  );
  if (!derived) {
    const commands = [
      ...new Set(Object.values(bundled.catalog.targets).map((t) => t.runtime.command[0])),
    ];
    throw new SwitchyardError(
      'SY_CATALOG_NOT_EXECUTABLE',
      'No agent CLI of the default catalog is installed on this machine.',
      {
        hint: `install at least one of: ${commands.join(', ')} (on PATH), then run "switchyard catalog init" again`,
      },
    );
  }
  // The written catalog must pass the same validation a live run applies.
  const check = validateCatalog(derived.catalog, { file: output, env: process.env, cwd });
  if (!check.catalog) {
    throw new SwitchyardError('SY_INTERNAL', 'The derived catalog failed validation.', {
      problems: check.problems,
    });
  }
  await mkdir(dirname(output), { recursive: true });
  await writeFile(output, `${JSON.stringify(derived.catalog, null, 2)}\n`);
  const rel = relative(cwd, output) || output;
  const reference = rel.startsWith('.') || rel.startsWith('/') ? rel : `./${rel}`;
  const revision = catalogRevision(check.catalog);
  if (opts.json) {
    printJson({
      path: output,
      revision,
      kept: derived.kept,
      dropped: derived.dropped,
      filled: derived.filled,
    });
    return;
  }
  const lines = [
    `${pc.green('✓')} wrote ${output}`,
    `  revision  ${revision}`,
    `  targets   ${derived.kept.join(', ')}`,
    `  dropped   ${derived.dropped.length ? `${derived.dropped.join(', ')} ${pc.dim('(command not installed here)')}` : 'none'}`,
    `  refilled  ${derived.filled.length ? `${derived.filled.length} route list(s) whose candidates were all missing` : 'none'}`,
    '',
    'Use it from your project config, e.g. .switchyardrc.json next to it:',
    `  { "executionCatalog": "${reference}" }`,
    `or per run: --execution-catalog ${reference}, or AGENT_TASK_EXECUTION_CATALOG=${reference}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
