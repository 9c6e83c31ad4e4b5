// The `@switchyard/testkit/postgres` entry: a throwaway PostgreSQL cluster for tests.
export { type PostgresCluster, postgresBin, startPostgresCluster } from './cluster.js';
export { freshDatabase, type ProvidedPostgres, postgresGlobalSetup } from './global-setup.js';
