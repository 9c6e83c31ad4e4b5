import type { Command } from 'commander';

/**
 * `switchyard catalog validate|show|schema|init`. Implementations load lazily so
 * `switchyard --help` stays fast.
 */
export function registerCatalog(program: Command): void {
  const catalog = program
    .command('catalog')
    .description(
      'Validate, explain and create the execution catalog (which agent/model runs which route).',
    )
    .addHelpText(
      'after',
      `
The catalog is resolved in this order: --execution-catalog FILE, then the
AGENT_TASK_EXECUTION_CATALOG environment variable, then "executionCatalog" in the project
config (switchyard.config.*, .switchyardrc*, or "switchyard" in package.json), then the
bundled default catalog.

Examples:
  $ switchyard catalog validate
  $ switchyard catalog show --at 2027-01-15T09:30:00-05:00
  $ switchyard catalog init && switchyard catalog validate --execution-catalog execution-catalog.json`,
    );
  registerCatalogValidate(catalog);
  registerCatalogShow(catalog);
  registerCatalogSchema(catalog);
  registerCatalogInit(catalog);
}

/** `switchyard catalog validate`. */
function registerCatalogValidate(catalog: Command): void {
  catalog
    .command('validate')
    .description(
      'Validate the resolved catalog: every rule, every problem at once (exit 0 valid, 2 invalid).',
    )
    .option('--execution-catalog <file>', 'validate this catalog file instead of the resolved one')
    .option(
      '--skip-command-check',
      "don't require each target's command to be executable on this machine",
    )
    .option('--json', 'print one JSON document to stdout')
    .addHelpText(
      'after',
      `
Prints the catalog source, its revision (SHA-256) and a coverage summary, or every problem
with its JSON path and a hint. Targets whose command is not installed here are errors;
--skip-command-check validates a catalog on a machine without the agent CLIs (e.g. CI).

Examples:
  $ switchyard catalog validate
  $ switchyard catalog validate --execution-catalog team-catalog.json --skip-command-check
  $ AGENT_TASK_EXECUTION_CATALOG=ci.json switchyard catalog validate --json`,
    )
    .action(async (opts) => (await import('./catalog-validate.js')).catalogValidate(opts));
}

/** `switchyard catalog show`. */
function registerCatalogShow(catalog: Command): void {
  catalog
    .command('show')
    .description('Show the resolved routes per stage with the time window active at an instant.')
    .option('--execution-catalog <file>', 'show this catalog file instead of the resolved one')
    .option('--at <iso-time>', 'the instant that picks time windows (default: now)')
    .option(
      '--expanded',
      'print the catalog in the full form (a compact one expanded: every route of both stages)',
    )
    .option('--json', 'print one JSON document to stdout')
    .addHelpText(
      'after',
      `
Needs no agent CLI installed: commands are not checked (use "catalog validate" for that).

A catalog may be written in the compact form: "defaults" gives the route of every route id
(or per stage, "defaults": { "worker": {...} }, or per kind, "local" / "cloud"), and
"routes" lists only the routes that differ. It is expanded to the full form (exactly
local-G01…G10 and cloud-G01…G10 per stage) before it is validated and hashed, so both forms
of one catalog have one revision. --expanded prints that full form (a file the full format
reads); with --json it is wrapped with the source and revision.

Examples:
  $ switchyard catalog show
  $ switchyard catalog show --expanded > full-catalog.json
  $ switchyard catalog show --at 2027-07-01T22:00:00Z
  $ switchyard catalog show --json | jq '.stages.worker[] | select(.route == "cloud-G05")'`,
    )
    .action(async (opts) => (await import('./catalog-show.js')).catalogShow(opts));
}

/** `switchyard catalog schema`. */
function registerCatalogSchema(catalog: Command): void {
  catalog
    .command('schema')
    .description('Print the JSON Schema of the execution catalog (generated from the validator).')
    .option('--project-config', 'print the JSON Schema of the project config instead')
    .addHelpText(
      'after',
      `
Examples:
  $ switchyard catalog schema > execution-catalog.schema.json
  $ switchyard catalog schema --project-config`,
    )
    .action(async (opts) => (await import('./catalog-schema.js')).catalogSchemaCommand(opts));
}

/** `switchyard catalog init`. */
function registerCatalogInit(catalog: Command): void {
  catalog
    .command('init')
    .description('Write a project catalog that uses only the agent CLIs installed on this machine.')
    .option('-o, --output <file>', 'where to write the catalog', 'execution-catalog.json')
    .option('--force', 'overwrite the output file if it exists')
    .option('--json', 'print one JSON document to stdout')
    .addHelpText(
      'after',
      `
Detects the agent CLIs on PATH (and their versions), starts from the bundled default
catalog, keeps the targets whose command is installed, drops missing candidates, and fills
a cloud route left empty with installed targets of the same execution class (else any).
A local-* route never gets a cloud target: with no local agent it keeps the default local
targets as marked placeholders. With no agent installed it writes the whole default as a
template to finish. The output explains the route ids G01-G10.

Examples:
  $ switchyard catalog init
  $ switchyard catalog init --output config/catalog.json --force`,
    )
    .action(async (opts) => (await import('./catalog-init.js')).catalogInit(opts));
}
