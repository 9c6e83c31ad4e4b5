import type { Problem } from '@switchyard/core';
import type { Catalog } from './schema.js';

/**
 * Environment variables that make a program load or run other code than it was started with:
 * the dynamic loader's (`LD_PRELOAD`), a runtime's start-up options (`NODE_OPTIONS`,
 * `PYTHONSTARTUP`, `JAVA_TOOL_OPTIONS`), a shell's start-up file (`BASH_ENV`), and the commands
 * git, ssh and editors run (`GIT_SSH_COMMAND`, `EDITOR`). A catalog that sets one is not
 * refused (a team may need it), but `catalog validate` and `run` say so: whoever can edit the
 * catalog can run code in every agent through it.
 */
const LOADER_VARIABLES = new Set([
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'GLIBC_TUNABLES',
  'GCONV_PATH',
  'NODE_OPTIONS',
  'NODE_PATH',
  'BASH_ENV',
  'ENV',
  'ZDOTDIR',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'IFS',
  'PATH',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'GIT_EDITOR',
  'GIT_PAGER',
  'GIT_EXTERNAL_DIFF',
  'GIT_PROXY_COMMAND',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_TEMPLATE_DIR',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'BROWSER',
  'PYTHONSTARTUP',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONINSPECT',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'RUBYOPT',
  'RUBYLIB',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'LUA_INIT',
  'DOTNET_STARTUP_HOOKS',
  'CORECLR_PROFILER',
  'ELECTRON_RUN_AS_NODE',
  'NPM_CONFIG_SCRIPT_SHELL',
]);
const LOADER_PREFIXES = ['LD_', 'DYLD_', 'GIT_CONFIG_KEY_', 'GIT_CONFIG_VALUE_', 'LUA_INIT_'];

/** True for a variable that makes a program load or run other code (see above). */
export function isLoaderVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return LOADER_VARIABLES.has(upper) || LOADER_PREFIXES.some((p) => upper.startsWith(p));
}

/** A warning per target `environment` entry that sets a loader variable. */
export function loaderVariableWarnings(
  catalog: Catalog,
  opts: { file?: string; pathPrefix?: string } = {},
): Problem[] {
  const problems: Problem[] = [];
  for (const [id, target] of Object.entries(catalog.targets)) {
    for (const name of Object.keys(target.runtime.environment ?? {})) {
      if (!isLoaderVariable(name)) continue;
      problems.push({
        code: 'SY_CATALOG_INVALID',
        severity: 'warning',
        ...(opts.file ? { file: opts.file } : {}),
        path: [opts.pathPrefix, `targets.${id}.runtime.environment.${name}`]
          .filter(Boolean)
          .join('.'),
        message: `target "${id}" sets ${name}, which makes its agent load or run other code`,
        hint: 'keep it only if the agent needs it: whoever edits the catalog runs code in every attempt of this target through it',
      });
    }
  }
  return problems;
}
