import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PostgresCluster, startPostgresCluster } from '@switchyard/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../dispatcher/helpers.js';

// `switchyard store init|status` and store selection against a real PostgreSQL: a fresh
// cluster for this file (as the `postgres` user when root).
let cluster: PostgresCluster;
let url = '';
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startPostgresCluster();
  url = cluster.createDatabase('cli');
}, 120_000);
afterAll(() => {
  cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sql = (statement: string) =>
  execFileSync(join(cluster.bin, 'psql'), [
    ...['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'postgres', '-d', 'cli'],
    ...['-v', 'ON_ERROR_STOP=1', '-c', statement],
  ]);
const workspace = (config: unknown) => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-store-cli-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'agent-task'));
  writeFileSync(join(dir, 'switchyard.config.json'), JSON.stringify(config));
  return dir;
};
// Nothing in the caller's environment decides the store.
const env = { SWITCHYARD_STORE: '' };

describe('switchyard store init|status', { timeout: 120_000 }, () => {
  it('status says what is missing and how to fix it; init creates it, idempotently', async () => {
    const before = await runCli(['store', 'status', '--store', url], { env });
    expect(before.code, before.stderr).toBe(1);
    expect(before.stdout).toContain('schema   none');
    expect(before.stderr).toContain('SY_STORE_SCHEMA');
    expect(before.stderr).toContain(`switchyard store init --store ${url}`);

    // SWITCHYARD_STORE selects the store; a password never shows (trust auth ignores it).
    const secret = url.replace('postgres@', 'postgres:hunter2@');
    const init = await runCli(['store', 'init'], { env: { SWITCHYARD_STORE: secret } });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/schema +migrated to version 3 \(applied 1, 2, 3\)/);
    expect(init.stdout).toContain('(from SWITCHYARD_STORE)');
    expect(init.stdout).toMatch(/pg-boss +schema switchyard_boss, version \d+/);
    expect(init.stdout + init.stderr).not.toContain('hunter2');
    const again = await runCli(['store', 'init', '--store', url, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ applied: [], schemaVersion: 3 });

    // the config names the store and its lease; --store still wins over it
    const ws = workspace({ store: { url: secret, leaseSeconds: 45 } });
    const status = await runCli(['store', 'status', '--json', '--workspace', ws], { env });
    expect(status.code, status.stderr).toBe(0);
    const doc = JSON.parse(status.stdout);
    expect(doc).toMatchObject({ from: 'file', leaseSeconds: 45, current: true, reachable: true });
    expect(doc.problem).toBeUndefined();
    expect(status.stdout).not.toContain('hunter2');
    const shown = await runCli(['config', '--json'], { env, cwd: ws });
    expect(shown.code, shown.stderr).toBe(0);
    const values = JSON.parse(shown.stdout).values;
    expect(values).toContainEqual({
      key: 'store.url',
      value: url,
      from: 'file',
      source: 'switchyard.config.json',
    });
    expect(values).toContainEqual(
      expect.objectContaining({ key: 'store.leaseSeconds', value: 45 }),
    );
    const flag = await runCli(['store', 'status', '--store', 'file', '--workspace', ws], { env });
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.stdout).toContain('file store');
  });

  it('a schema newer than this switchyard, no server, no database, a bad URL: coded errors with the fix', async () => {
    const future = `${url}?schema=future`;
    expect((await runCli(['store', 'init', '--store', future], { env })).code).toBe(0);
    sql("insert into future.migrations (version, name) values (99, 'from a newer release')");
    for (const command of ['status', 'init']) {
      const newer = await runCli(['store', command, '--store', future], { env });
      expect(newer.code, command).toBe(1);
      expect(newer.stderr).toContain('SY_STORE_SCHEMA');
      expect(newer.stderr).toContain('schema version 99, newer than this switchyard (3)');
      expect(newer.stderr).toContain('upgrade switchyard on this machine');
    }

    const stopped = await runCli(['store', 'status', '--store', 'postgres://sy@127.0.0.1:1/x'], {
      env,
    });
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain('server   unreachable');
    expect(stopped.stderr).toContain('SY_STORE_UNREACHABLE');
    expect(stopped.stderr).toContain('Start the PostgreSQL server');

    const nodb = await runCli(['store', 'init', '--json', '--store', `${cluster.url}-none`], {
      env,
    });
    expect(nodb.code).toBe(1);
    expect(nodb.stderr).toContain('SY_STORE_UNREACHABLE');
    expect(nodb.stderr).toContain('createdb');

    const bad = await runCli(['store', 'status', '--store', 'mysql://db/x'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SY_STORE_URL');
    const badConfig = await runCli(
      ['store', 'status', '--workspace', workspace({ store: 'redis://x' })],
      {
        env,
      },
    );
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('SY_CONFIG_INVALID');
    expect(badConfig.stderr).toContain('store');
    const badLease = await runCli(
      ['store', 'status', '--workspace', workspace({ store: { url, leaseSeconds: 1 } })],
      { env },
    );
    expect(badLease.code).toBe(2);
    expect(badLease.stderr).toContain('store.leaseSeconds');
  });
});
