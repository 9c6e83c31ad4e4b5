import { resolve } from 'node:path';

/**
 * The workspace a command works on: `--workspace` when given, else the folder found from the
 * current one upward (agent-task/ or a switchyard config), else the current folder. Loaded by
 * the commands' actions, so its imports stay out of start-up.
 */
export async function commandWorkspace(workspace: string | undefined): Promise<string> {
  if (workspace !== undefined) return resolve(workspace);
  const { searchWorkspaceRoot } = await import('@switchyard/utils');
  const { hasConfigFile } = await import('@switchyard/config');
  return searchWorkspaceRoot(process.cwd(), hasConfigFile).root ?? process.cwd();
}
