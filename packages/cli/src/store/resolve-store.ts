import type { StoreSetting } from '@switchyard/config';

/** Options every command that can use a shared store takes. */
export interface StoreFlagOptions {
  store?: string;
  workspace?: string;
}

/**
 * The store a command uses: `--store` > `SWITCHYARD_STORE` > the project config's `store`
 * (searched from the current folder up to the workspace root) > the file store. The config is
 * read only when neither the flag nor the variable decides, so a broken config does not stop
 * `store status --store URL`; `leaseSeconds` still comes from a readable config.
 */
export async function resolveStore(opts: StoreFlagOptions): Promise<StoreSetting> {
  const configLib = await import('@switchyard/config');
  const env = process.env[configLib.STORE_ENV];
  const root = await (await import('../command-workspace.js')).commandWorkspace(opts.workspace);
  const decided = opts.store !== undefined || Boolean(env);
  const loaded = await configLib
    .loadProjectConfig(opts.workspace !== undefined ? root : process.cwd(), { stopDir: root })
    .catch((error: unknown) => {
      if (decided) return undefined;
      throw error;
    });
  return configLib.resolveStoreSetting({
    flag: opts.store,
    env,
    config: loaded?.config.store,
    configFile: loaded?.filepath,
  });
}

/**
 * The shared (PostgreSQL) store a reading or answering command uses, or undefined for the
 * file store. A config that cannot be read keeps such a command on this machine's files
 * (they report it themselves), unless `--store` named a store.
 */
export async function sharedStoreSetting(
  opts: StoreFlagOptions,
): Promise<Extract<StoreSetting, { kind: 'postgres' }> | undefined> {
  const setting = await resolveStore(opts).catch((error: unknown) => {
    if (opts.store !== undefined) throw error;
    return { kind: 'file' as const };
  });
  return setting.kind === 'postgres' ? setting : undefined;
}
