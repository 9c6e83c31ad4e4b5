// BUILTIN_PLUGINS, configuredEngineOptions, runGateCommand and createRunRenderer are for the
// in-process engine harness of the end-to-end tests (test/engine): the plugins a run loads, the
// engine options its config sets, how it runs gate commands and the lines it prints, so an
// in-process run does and shows what `switchyard run` would.
export { BUILTIN_PLUGINS } from './builtin-plugins.js';
export { configuredEngineOptions } from './engine-options.js';
export { exitCodeFor } from './exit-codes.js';
export { runGateCommand } from './gate-runner.js';
export { main } from './main.js';
export { createRunRenderer } from './run-renderer.js';
