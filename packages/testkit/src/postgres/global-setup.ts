import { randomBytes } from 'node:crypto';
import { startPostgresCluster } from './cluster.js';

/** What the global setup hands to test files (vitest `inject('postgres')`). */
export interface ProvidedPostgres {
  url: string;
  port: number;
  bin: string;
}

/**
 * A vitest globalSetup body: one cluster for the whole run, stopped and removed in teardown
 * (also when tests fail). Use from a setup file:
 * `export default (project) => postgresGlobalSetup((value) => project.provide('postgres', value))`.
 */
export async function postgresGlobalSetup(
  provide: (value: ProvidedPostgres) => void,
): Promise<() => void> {
  const cluster = await startPostgresCluster();
  const stop = () => cluster.stop();
  // A run interrupted by a signal still removes the cluster.
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  provide({ url: cluster.url, port: cluster.port, bin: cluster.bin });
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    stop();
  };
}

/**
 * Creates a database of its own for one test file on the run's cluster, by connecting to the
 * maintenance database with `createdb` (no driver needed), and returns its URL.
 */
export async function freshDatabase(provided: ProvidedPostgres, prefix = 'sy'): Promise<string> {
  const { spawnSync } = await import('node:child_process');
  const { join } = await import('node:path');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const result = spawnSync(
    join(provided.bin, 'createdb'),
    ['-h', '127.0.0.1', '-p', String(provided.port), '-U', 'postgres', name],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`createdb ${name} failed: ${result.stderr}`);
  return provided.url.replace(/\/postgres$/, `/${name}`);
}
