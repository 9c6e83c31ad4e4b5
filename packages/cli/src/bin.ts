#!/usr/bin/env node
// The entry point checks the Node version before loading anything else: the rest of the CLI
// (and its dependencies) uses APIs of Node 22.12+, and on an older Node it would end in a
// confusing stack trace. Keep this file free of static imports and of syntax newer than ES2017.
import { nodeVersionProblem } from './node-version.js';
import { asksOnlyVersion, packageVersion } from './version-fast-path.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
} else if (asksOnlyVersion(process.argv.slice(2))) {
  // The same line commander prints for --version, without loading the command tree.
  process.stdout.write(`${await packageVersion()}\n`);
} else {
  // A run loads ~450 modules; compiling them is a tenth of a short run's CPU. Node keeps their
  // compiled code for the next start (in the OS temp folder; NODE_DISABLE_COMPILE_CACHE=1
  // turns it off, a folder it cannot write only skips it).
  const { enableCompileCache } = await import('node:module');
  enableCompileCache();
  const { runBin } = await import('./run-bin.js');
  await runBin();
}
