import { type ProvidedPostgres, postgresGlobalSetup } from '@switchyard/testkit/postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ProvidedPostgres;
  }
}

// Starts one cluster for the run (as the `postgres` user when root) and removes it afterwards.
export default function setup(project: TestProject) {
  return postgresGlobalSetup((value) => project.provide('postgres', value));
}
