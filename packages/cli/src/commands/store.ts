import type { Command } from 'commander';
import type { StoreFlagOptions } from '../store/resolve-store.js';

interface StoreCommandOptions extends StoreFlagOptions {
  json?: boolean;
}

const STORE_HELP = `
Which store: --store > SWITCHYARD_STORE > config key \`store\` > "file". The file store
(agent-task/.switchyard/ of the workspace) needs no set-up; a postgres:// URL names a database
shared by several machines: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME]
(switchyard's tables in schema NAME, default "switchyard"; pg-boss in NAME_boss). The password
may also come from PGPASSWORD or ~/.pgpass; it is never printed. The config may set
{ "store": { "url": "postgres://…", "leaseSeconds": 30 } }.`;

const storeOption = (command: Command) =>
  command
    .option('--store <url>', 'the store: "file" or a postgres:// URL (see below)')
    .option('--workspace <dir>', 'folder whose config names the store (default: found like git)')
    .option('--json', 'one JSON document instead of text');

/** `switchyard store init|status`: create and check a shared (PostgreSQL) state store. */
export function registerStore(program: Command): void {
  const store = program
    .command('store')
    .description('Create or check the state store shared by several machines (PostgreSQL).');
  storeOption(
    store
      .command('init')
      .description(
        'Create or migrate the store schema and install pg-boss in its own schema (safe to repeat, also from several machines at once).',
      ),
  )
    .addHelpText(
      'after',
      `${STORE_HELP}

The database must exist (createdb NAME) and the user may create schemas in it.
Exit codes: 0 the store is ready, 1 unreachable or refused, 2 a bad URL.

Examples:
  $ switchyard store init --store postgres://sy@db.internal/switchyard
  $ SWITCHYARD_STORE=postgres://sy@db.internal/switchyard switchyard store init --json`,
    )
    .action(async (opts: StoreCommandOptions) => storeInit(opts));
  storeOption(
    store
      .command('status')
      .description(
        "Check the store without changing it: reachable, schema version, pg-boss, and each repository's backlog, leases, claims and events.",
      ),
  )
    .addHelpText(
      'after',
      `${STORE_HELP}

Exit codes: 0 usable, 1 unreachable or its schema missing or of another version (the
message says the fix), 2 a bad URL.

Examples:
  $ switchyard store status --store postgres://sy@db.internal/switchyard
  $ switchyard store status --json | jq .scopes`,
    )
    .action(async (opts: StoreCommandOptions) => storeStatusCommand(opts));
}

async function storeInit(opts: StoreCommandOptions): Promise<void> {
  const { resolveStore } = await import('../store/resolve-store.js');
  const setting = await resolveStore(opts);
  if (setting.kind === 'file') {
    const text =
      'The file store needs no init: each workspace keeps it in agent-task/.switchyard/, created by its first run. To share a backlog between machines, give a postgres:// URL (--store, SWITCHYARD_STORE or config `store`).';
    if (opts.json) {
      const { printJson } = await import('../output.js');
      printJson({ kind: 'file', from: setting.from, initialized: false, note: text });
    } else process.stdout.write(`${text}\n`);
    return;
  }
  const { initStore } = await import('@switchyard/store-postgres');
  const result = await initStore(setting.url);
  if (opts.json) {
    const { printJson } = await import('../output.js');
    printJson({ kind: 'postgres', from: setting.from, ...result });
    return;
  }
  const done =
    result.applied.length === 0
      ? `already at version ${result.schemaVersion}`
      : `migrated to version ${result.schemaVersion} (applied ${result.applied.join(', ')})`;
  process.stdout.write(
    `${[
      `store    ${result.location} (${originText(setting)})`,
      `schema   ${done}`,
      `pg-boss  schema ${result.bossSchema}, version ${result.bossVersion ?? '?'}`,
      'ready: machines may now share this backlog (switchyard store status shows it).',
    ].join('\n')}\n`,
  );
}

async function storeStatusCommand(opts: StoreCommandOptions): Promise<void> {
  const { resolveStore } = await import('../store/resolve-store.js');
  const setting = await resolveStore(opts);
  const { printJson } = await import('../output.js');
  if (setting.kind === 'file') {
    const text =
      'file store: agent-task/.switchyard/ of the workspace (one machine); `switchyard status` shows its tasks.';
    if (opts.json) printJson({ kind: 'file', from: setting.from });
    else process.stdout.write(`${text}\n`);
    return;
  }
  const { storeStatus } = await import('@switchyard/store-postgres');
  const status = await storeStatus(setting.url);
  if (opts.json) {
    printJson({
      kind: 'postgres',
      from: setting.from,
      leaseSeconds: setting.leaseSeconds,
      ...status,
    });
    if (status.problem) process.exitCode = 1;
    return;
  }
  const { renderStoreStatus } = await import('../store/store-status-render.js');
  process.stdout.write(renderStoreStatus(status, originText(setting), setting.leaseSeconds));
  if (status.problem) {
    const { SwitchyardError } = await import('@switchyard/core');
    const { code, message, hint } = status.problem;
    throw new SwitchyardError(code as 'SY_STORE_SCHEMA', message, hint ? { hint } : {});
  }
}

function originText(setting: { from: string; source?: string }): string {
  return setting.from === 'default' ? 'default' : `from ${setting.source}`;
}
