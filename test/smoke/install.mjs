#!/usr/bin/env node
// Installs the smoke run's pinned agent CLIs into the cache folder (see clis.mjs) with npm,
// both at once, skipping any already there. Each goes to a temp folder first and is renamed
// into place when complete, so an interrupted install is never mistaken for a good one.
// Install scripts are held back: the native binaries come in the platform packages.
import { spawn } from 'node:child_process';
import { mkdir, rename, rm } from 'node:fs/promises';
import { isSmokeCliInstalled, SMOKE_AGENTS, SMOKE_CACHE, smokeCli } from './clis.mjs';

function npmInstall(prefix, spec) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['install', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund'];
  return new Promise((resolve, reject) => {
    const child = spawn(npm, [...args, '--loglevel=error', spec], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`npm install ${spec} exited ${code}`)),
    );
  });
}

async function install(agent) {
  const cli = smokeCli(agent);
  if (isSmokeCliInstalled(agent)) {
    console.log(`smoke: ${cli.pkg}@${cli.version} already in ${cli.dir}`);
    return;
  }
  const started = Date.now();
  const temp = `${cli.dir}.partial-${process.pid}`;
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true });
  try {
    await npmInstall(temp, `${cli.pkg}@${cli.version}`);
    await rm(cli.dir, { recursive: true, force: true });
    await rename(temp, cli.dir);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  if (!isSmokeCliInstalled(agent)) throw new Error(`${cli.pkg}: no binary at ${cli.binary}`);
  console.log(`smoke: installed ${cli.pkg}@${cli.version} in ${Date.now() - started} ms`);
}

await mkdir(SMOKE_CACHE, { recursive: true });
const results = await Promise.allSettled(SMOKE_AGENTS.map(install));
const failed = results.filter((r) => r.status === 'rejected');
for (const r of failed) console.error(`smoke: ${r.reason?.message ?? r.reason}`);
process.exit(failed.length > 0 ? 1 : 0);
