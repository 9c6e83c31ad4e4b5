/** The oldest Node the CLI runs on (also the `engines.node` of every published package). */
export const MIN_NODE = [22, 12] as const;

/**
 * The message for a Node too old to run the CLI, or undefined when `version`
 * (`process.versions.node`, e.g. "20.20.2") is new enough. Plain code on purpose: it runs
 * before anything else is loaded, possibly on a very old Node.
 */
export function nodeVersionProblem(version: string): string | undefined {
  const parts = version.split('.');
  const major = Number(parts[0]);
  const minor = Number(parts[1]);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return (
    `switchyard needs Node ${MIN_NODE[0]}.${MIN_NODE[1]} or newer; this is Node ${version}` +
    ` (${process.execPath}).\n` +
    `  Install a current Node (https://nodejs.org, or nvm install 22) and run the command again.`
  );
}
