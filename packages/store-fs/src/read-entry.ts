// `@switchyard/store-fs/read`: the file store opened for reading (task states, leases, claims,
// sessions, isolation records) on core's light `@switchyard/core/dry-run` entry only, for the
// commands that read and must start fast: `switchyard run --dry-run`, its preflight and
// isolation report, and shell completion.
export { type FsReader, openFsReader } from './fs-reader.js';
