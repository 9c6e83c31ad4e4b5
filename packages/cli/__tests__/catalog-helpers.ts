import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

/** The built CLI (run `pnpm build` first). */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** Runs the built `switchyard` binary with Node 24 and a controlled environment. */
export async function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
) {
  const result = await execa(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? tmpdir(),
    env: { HOME: tmpdir(), PATH: '/nonexistent', ...opts.env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  return {
    exitCode: result.exitCode,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
  };
}

/** A temporary directory. */
export const tempDir = (prefix = 'sy-cli-') => mkdtemp(join(tmpdir(), prefix));

/** A directory of fake executables with the given names (each prints its name and exits 0). */
export async function fakeBinDir(names: string[]): Promise<string> {
  const dir = await tempDir('sy-bin-');
  await mkdir(dir, { recursive: true });
  for (const name of names) {
    await writeFile(join(dir, name), `#!/bin/sh\necho ${name} "$@"\n`);
    await chmod(join(dir, name), 0o755);
  }
  return dir;
}
