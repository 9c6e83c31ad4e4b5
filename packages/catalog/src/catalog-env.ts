/** The environment variable that names a catalog file. */
export const CATALOG_ENV = 'AGENT_TASK_EXECUTION_CATALOG';
