import type { Command } from 'commander';

/** Options of `switchyard config`. */
interface ConfigOptions {
  workspace?: string;
  executionCatalog?: string;
  maxParallel?: string;
  json?: boolean;
}

/** One resolved setting and where its value came from. */
interface ConfigValue {
  key: string;
  value: unknown;
  from: 'flag' | 'env' | 'file' | 'default';
  /** The flag, variable or file that set it. */
  source?: string;
}

/** `switchyard config`: the resolved project config and the origin of every value. */
export function registerConfig(program: Command): void {
  program
    .command('config')
    .description('Print the resolved project config and where each value came from.')
    .option('--workspace <dir>', 'folder holding agent-task/ (default: found like git)')
    .option('--execution-catalog <file>', 'as for run: shows that the flag wins')
    .option('--max-parallel <n>', 'as for run: shows that the flag wins')
    .option(
      '--json',
      'one JSON document: { file, searched, values: [{ key, value, from, source? }] }',
    )
    .addHelpText(
      'after',
      `
The config file is switchyard.config.json in the workspace root (recommended), or one of
the other names listed in the core README; it is searched from the current folder up to
the workspace root, never above. Order: flag > environment > file > default.

Examples:
  $ switchyard config
  $ switchyard config --json | jq '.values[] | select(.from != "default")'`,
    )
    .action(async (opts: ConfigOptions) => configCommand(opts));
}

async function configCommand(opts: ConfigOptions): Promise<void> {
  const { relative, resolve } = await import('node:path');
  const core = await import('@switchyard/core');
  const root =
    opts.workspace !== undefined
      ? resolve(opts.workspace)
      : (core.searchWorkspaceRoot(process.cwd(), core.hasConfigFile).root ?? process.cwd());
  const { config, filepath, raw } = await core.loadProjectConfig(process.cwd(), {
    stopDir: root,
  });
  // Shown relative to the workspace root: `retry.baseDelayMs = 10 (switchyard.config.json)`.
  const shown = filepath ? relative(root, filepath) || filepath : undefined;
  const values: ConfigValue[] = [];
  const inFile = (path: string[]) => {
    let node: unknown = raw;
    for (const key of path) {
      if (typeof node !== 'object' || node === null || !(key in node)) return false;
      node = (node as Record<string, unknown>)[key];
    }
    return true;
  };
  const add = (key: string, value: unknown, override?: Omit<ConfigValue, 'key' | 'value'>) => {
    if (override) values.push({ key, value, ...override });
    else if (inFile(key.split('.')))
      values.push({ key, value, from: 'file', ...(shown ? { source: shown } : {}) });
    else values.push({ key, value, from: 'default' });
  };
  const envCatalog = process.env[core.CATALOG_ENV];
  if (opts.executionCatalog !== undefined)
    add('executionCatalog', opts.executionCatalog, { from: 'flag', source: '--execution-catalog' });
  else if (envCatalog)
    add('executionCatalog', envCatalog, { from: 'env', source: core.CATALOG_ENV });
  else if (config.executionCatalog !== undefined)
    add(
      'executionCatalog',
      typeof config.executionCatalog === 'string' ? config.executionCatalog : '(inline catalog)',
    );
  else values.push({ key: 'executionCatalog', value: '(bundled default)', from: 'default' });
  add('plugins', config.plugins);
  add('retry.baseDelayMs', config.retry.baseDelayMs);
  add('retry.maxDelayMs', config.retry.maxDelayMs);
  add('park.maxWaitSeconds', config.park.maxWaitSeconds);
  add('park.maxParks', config.park.maxParks);
  if (opts.maxParallel !== undefined)
    add('maxParallel', Number(opts.maxParallel), { from: 'flag', source: '--max-parallel' });
  else add('maxParallel', config.maxParallel);
  add('stallTimeoutMs', config.stallTimeoutMs);
  add('maxAttemptSeconds', config.maxAttemptSeconds);
  add('evidence.maxAttemptBytes', config.evidence.maxAttemptBytes);
  add('prompts', config.prompts);
  if (opts.json) {
    const { printJson } = await import('../output.js');
    printJson({ file: filepath ?? null, searched: { from: process.cwd(), to: root }, values });
    return;
  }
  const lines = [
    filepath
      ? `config file ${filepath}`
      : `config file none (searched ${process.cwd()}${root !== process.cwd() ? ` up to ${root}` : ''} for ${core.RECOMMENDED_CONFIG_FILE} and the other names); every value is a default`,
    ...values.map(
      (v) =>
        `${v.key} = ${JSON.stringify(v.value)} (${v.from === 'flag' || v.from === 'env' ? `${v.from} ` : ''}${v.source ?? v.from})`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
