import { redactStoreUrl } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { resolveStoreSetting, storeConfigSchema } from './store-setting.js';

const PG = 'postgres://sy:pw@db:5432/switchyard';

describe('store selection', () => {
  it('--store > SWITCHYARD_STORE > config > file, with leaseSeconds from the config', () => {
    const config = { url: 'postgres://cfg@db/x', leaseSeconds: 45 };
    expect(resolveStoreSetting({})).toEqual({ kind: 'file', from: 'default' });
    expect(resolveStoreSetting({ config, configFile: 'sy.json' })).toEqual({
      kind: 'postgres',
      url: config.url,
      leaseSeconds: 45,
      from: 'file',
      source: 'sy.json',
    });
    expect(resolveStoreSetting({ env: PG, config })).toMatchObject({
      url: PG,
      leaseSeconds: 45,
      from: 'env',
    });
    expect(resolveStoreSetting({ flag: 'file', env: PG, config })).toEqual({
      kind: 'file',
      from: 'flag',
      source: '--store',
    });
    expect(resolveStoreSetting({ env: PG, config: 'file' })).toMatchObject({ leaseSeconds: 30 });
    expect(resolveStoreSetting({ env: '', config: 'file' })).toMatchObject({ kind: 'file' });
  });

  it('refuses what is neither file nor postgres://, naming where it came from, without the password', () => {
    expect(() => resolveStoreSetting({ flag: 'mysql://u:secret@db/x' })).toThrow(
      expect.objectContaining({
        code: 'SY_STORE_URL',
        message: expect.stringMatching(/"mysql:\/\/u@db\/x" \(from --store\)/),
      }),
    );
    const parsed = storeConfigSchema.safeParse({ url: 'sqlite://x', leaseSeconds: 2 });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(
      expect.arrayContaining(['url', 'leaseSeconds']),
    );
    expect(redactStoreUrl(PG)).toBe('postgres://sy@db:5432/switchyard');
  });
});
