import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Resolves a command the way `execvp` would, without running anything: a name is looked up
 * on `env.PATH`; a path (containing "/", or starting with "~/") must itself be an executable
 * file. Returns the absolute path, or undefined when nothing executable is found.
 */
export function findExecutable(
  command: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): string | undefined {
  if (command === '') return undefined;
  const expanded = command.startsWith('~/')
    ? join(env.HOME ?? homedir(), command.slice(2))
    : command;
  if (expanded.includes('/')) {
    const path = isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
    return isExecutableFile(path) ? path : undefined;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = resolve(cwd, dir, expanded);
    if (isExecutableFile(path)) return path;
  }
  return undefined;
}
