// `@switchyard/tasks/dry-run`: what `switchyard run --dry-run` and its preflight need (loading a
// workspace, the tests policy, quoting argv), without review parsing or YAML plan validation,
// so the command loads less. Same objects as the root entry (shared chunks).
export { refuseUnjudgeableTests } from './gates/tests-required.js';
export { quoteArgv } from './orchestrate/plan-materialize.js';
export { loadWorkspaceAsync } from './workspace/load.js';
