import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

/** Options of `switchyard plugins`. */
export interface PluginsOptions {
  workspace?: string;
  json?: boolean;
}

/** One loaded plugin as `switchyard plugins` reports it. */
export interface PluginRow {
  name: string;
  version: string | null;
  kind: 'runner' | 'classifier' | 'transcript';
  /** Agents served (classifiers, transcripts): a list or `*`; runners: null. */
  agents: string[] | '*' | null;
  /** Output formats (runners only). */
  outputFormats: string[] | null;
  source: 'builtin' | 'config';
  specifier: string;
  file: string;
}

/** `switchyard plugins`: what is loaded, in load order (built-ins first, then the config's). */
export function registerPlugins(program: Command): void {
  program
    .command('plugins')
    .description('List the loaded plugins: name, version, kind, agents served, source.')
    .option(
      '--workspace <dir>',
      'where to look for the switchyard config (default: current folder)',
    )
    .option('--json', 'print one JSON array to stdout')
    .addHelpText(
      'after',
      `
Built-in plugins (runners, per-agent classifiers, the generic classifier) load first, then
the \`plugins\` of the project config (switchyard.config.{mjs,js,ts,json,yaml}, .switchyardrc*,
or "switchyard" in package.json), resolved from the config file's folder. A plugin that fails
to load or validate is reported by name and reason, with exit code 2.

Examples:
  $ switchyard plugins
  $ switchyard plugins --json | jq '.[] | select(.kind == "classifier") | .name'
  $ switchyard plugins --workspace ../my-repo`,
    )
    .action(async (opts: PluginsOptions) => pluginsCommand(opts));
}

/** Loads config + plugins and prints them. */
export async function pluginsCommand(opts: PluginsOptions): Promise<void> {
  const kit = await import('@switchyard/runner-kit');
  const configLib = await import('@switchyard/config');
  const { BUILTIN_PLUGINS } = await import('../builtin-plugins.js');
  const { printJson } = await import('../output.js');
  const workspace = await (await import('../command-workspace.js')).commandWorkspace(
    opts.workspace,
  );
  const { config, filepath } = await configLib.loadProjectConfig(workspace);
  const loaded = await kit.loadPlugins({
    entries: config.plugins,
    ...(filepath ? { configDir: dirname(filepath), configFile: filepath } : {}),
    fallbackDir: dirname(fileURLToPath(import.meta.url)),
    builtins: BUILTIN_PLUGINS,
  });
  new kit.PluginSet(loaded); // duplicate names are an error here too
  const rows: PluginRow[] = loaded.map(({ plugin, source, specifier, file, version }) => ({
    name: plugin.meta.name,
    version: version ?? null,
    kind: plugin.kind,
    agents: plugin.kind === 'runner' ? null : plugin.agents === '*' ? '*' : [...plugin.agents],
    outputFormats: plugin.kind === 'runner' ? [...plugin.outputFormats] : null,
    source,
    specifier,
    file,
  }));
  if (opts.json) {
    printJson(rows);
    return;
  }
  const table = rows.map((r) => [
    r.name,
    r.version ?? '-',
    r.kind,
    r.kind === 'runner'
      ? `formats: ${r.outputFormats!.join(', ')}`
      : r.agents === '*'
        ? '* (every agent)'
        : r.agents!.join(', '),
    r.source === 'builtin' ? 'builtin' : `config: ${r.specifier}`,
  ]);
  const head = ['NAME', 'VERSION', 'KIND', 'SERVES', 'SOURCE'];
  const { renderTable } = await import('./catalog-table.js');
  process.stdout.write(`${renderTable(head, table, '')}\n`);
  if (filepath) process.stdout.write(`\nconfig: ${filepath}\n`);
}
