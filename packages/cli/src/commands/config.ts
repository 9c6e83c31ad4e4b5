import type { Command } from 'commander';
import type { ConfigOverride } from '../config-values.js';

/** Options of `switchyard config`. */
interface ConfigOptions {
  workspace?: string;
  executionCatalog?: string;
  maxParallel?: string;
  json?: boolean;
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
Every section is listed (retry … routing, notify, gates), down to each value; an optional
section the file does not set (notify, isolation) shows as null.

Examples:
  $ switchyard config
  $ switchyard config --json | jq '.values[] | select(.from != "default")'`,
    )
    .action(async (opts: ConfigOptions) => configCommand(opts));
}

async function configCommand(opts: ConfigOptions): Promise<void> {
  const { relative } = await import('node:path');
  const { redactStoreUrl } = await import('@switchyard/utils');
  const configLib = await import('@switchyard/config');
  const catalogLib = await import('@switchyard/catalog');
  const root = await (await import('../command-workspace.js')).commandWorkspace(opts.workspace);
  const { config, filepath, raw } = await configLib.loadProjectConfig(process.cwd(), {
    stopDir: root,
  });
  // Shown relative to the workspace root: `retry.baseDelayMs = 10 (switchyard.config.json)`.
  const shown = filepath ? relative(root, filepath) || filepath : undefined;
  const overrides = new Map<string, ConfigOverride>();
  const envCatalog = process.env[catalogLib.CATALOG_ENV];
  overrides.set(
    'executionCatalog',
    opts.executionCatalog !== undefined
      ? { value: opts.executionCatalog, from: 'flag', source: '--execution-catalog' }
      : envCatalog
        ? { value: envCatalog, from: 'env', source: catalogLib.CATALOG_ENV }
        : config.executionCatalog !== undefined
          ? {
              value:
                typeof config.executionCatalog === 'string'
                  ? config.executionCatalog
                  : '(inline catalog)',
              from: 'file',
              ...(shown ? { source: shown } : {}),
            }
          : { value: '(bundled default)', from: 'default' },
  );
  if (opts.maxParallel !== undefined)
    overrides.set('maxParallel', {
      value: Number(opts.maxParallel),
      from: 'flag',
      source: '--max-parallel',
    });
  // The store URL may carry a password: shown without it; SWITCHYARD_STORE overrides the file.
  const store = typeof config.store === 'string' ? { url: config.store } : config.store;
  const shownStore =
    config.store === undefined
      ? undefined
      : typeof config.store === 'string'
        ? redactStoreUrl(config.store)
        : { ...config.store, url: redactStoreUrl(config.store.url) };
  const envStore = process.env[configLib.STORE_ENV];
  if (envStore)
    overrides.set(typeof config.store === 'object' ? 'store.url' : 'store', {
      value: redactStoreUrl(envStore),
      from: 'env',
      source: configLib.STORE_ENV,
    });
  else if (!store) overrides.set('store', { value: 'file', from: 'default' });
  const { configValues } = await import('../config-values.js');
  const values = configValues({
    config: { ...config, store: shownStore } as unknown as Record<string, unknown>,
    raw,
    file: shown,
    sections: Object.keys(configLib.projectConfigSchema.shape).filter((k) => k !== '$schema'),
    overrides,
  });
  if (opts.json) {
    const { printJson } = await import('../output.js');
    printJson({ file: filepath ?? null, searched: { from: process.cwd(), to: root }, values });
    return;
  }
  const lines = [
    filepath
      ? `config file ${filepath}`
      : `config file none (searched ${process.cwd()}${root !== process.cwd() ? ` up to ${root}` : ''} for ${configLib.RECOMMENDED_CONFIG_FILE} and the other names); every value is a default`,
    ...values.map(
      (v) =>
        `${v.key} = ${JSON.stringify(v.value)} (${v.from === 'flag' || v.from === 'env' ? `${v.from} ` : ''}${v.source ?? v.from})`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
