import { SwitchyardError } from '@switchyard/core';
import { redactStoreUrl } from '@switchyard/utils';
import { z } from 'zod';

/** The environment variable that selects the state store (over the config, under `--store`). */
export const STORE_ENV = 'SWITCHYARD_STORE';

/** Seconds a dispatcher's lease on a task lasts without renewal, unless configured. */
export const DEFAULT_LEASE_SECONDS = 30;

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

const storeLocation = z
  .string()
  .min(1)
  .refine((value) => value === 'file' || POSTGRES_URL.test(value), {
    message: 'must be "file" or a postgres:// URL',
  });

/** Config key `store`: `"file"`, a `postgres://` URL, or `{ url, leaseSeconds }`. */
export const storeConfigSchema = z
  .union([
    storeLocation,
    z.strictObject({
      url: storeLocation.describe('"file" or postgres://USER@HOST[:PORT]/DATABASE[?schema=NAME]'),
      leaseSeconds: z
        .number()
        .int()
        .min(5)
        .max(3600)
        .default(DEFAULT_LEASE_SECONDS)
        .describe(
          "How long a machine owns a task without renewing its lease: a dead machine's tasks go to the others after this (plus one supervise interval).",
        ),
    }),
  ])
  .describe(
    'The state store: "file" (the default: agent-task/.switchyard/, one machine) or a postgres:// URL shared by several machines; { url, leaseSeconds } sets the lease too. Overridden by --store and SWITCHYARD_STORE.',
  );

/** Where the store setting came from, for messages and `switchyard config`. */
export type StoreSettingOrigin =
  | { from: 'flag'; source: '--store' }
  | { from: 'env'; source: typeof STORE_ENV }
  | { from: 'file'; source: string }
  | { from: 'default' };

/** The selected state store. `url` may hold credentials: print `display` names, never `url`. */
export type StoreSetting = StoreSettingOrigin &
  ({ kind: 'file' } | { kind: 'postgres'; url: string; leaseSeconds: number });

/** Inputs of {@link resolveStoreSetting}, in precedence order. */
export interface StoreSettingInputs {
  flag?: string | undefined;
  env?: string | undefined;
  config?: z.output<typeof storeConfigSchema> | undefined;
  /** The config file, named when its value is refused. */
  configFile?: string | undefined;
}

/**
 * The store to use: `--store` > `SWITCHYARD_STORE` > config `store` > the file store. A value
 * that is neither `file` nor a postgres:// URL is `SY_STORE_URL` naming where it came from.
 * `leaseSeconds` comes from the config whichever source named the store.
 */
export function resolveStoreSetting(inputs: StoreSettingInputs): StoreSetting {
  const configured = typeof inputs.config === 'string' ? { url: inputs.config } : inputs.config;
  const leaseSeconds =
    (typeof configured === 'object' && 'leaseSeconds' in configured
      ? configured.leaseSeconds
      : undefined) ?? DEFAULT_LEASE_SECONDS;
  const origin: StoreSettingOrigin & { value?: string } =
    inputs.flag !== undefined
      ? { from: 'flag', source: '--store', value: inputs.flag }
      : inputs.env
        ? { from: 'env', source: STORE_ENV, value: inputs.env }
        : configured
          ? { from: 'file', source: inputs.configFile ?? 'config', value: configured.url }
          : { from: 'default' };
  const { value, ...from } = origin;
  if (value === undefined || value === 'file') return { kind: 'file', ...from };
  if (!POSTGRES_URL.test(value))
    throw new SwitchyardError(
      'SY_STORE_URL',
      `The store "${redactStoreUrl(value)}" (from ${from.from === 'file' ? `config key \`store\` in ${from.source}` : 'source' in from ? from.source : 'default'}) is neither "file" nor a postgres:// URL.`,
      {
        ...(from.from === 'file' ? { file: from.source, path: 'store' } : {}),
        hint: 'Use `file` (the default, one machine) or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE to share a backlog between machines.',
      },
    );
  return { kind: 'postgres', url: value, leaseSeconds, ...from };
}
