// `@switchyard/runner-kit/dry-run`: what `switchyard run --dry-run` needs before any plugin is
// loaded (the sandbox check's probe), without evidence, plugin loading or redaction.
export { sandboxProbeArgv } from './sandbox/bwrap-argv.js';
