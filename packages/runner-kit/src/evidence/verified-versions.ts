import type { ClassifierPlugin } from '@switchyard/core';

const VERSION = /\b(\d+\.\d+\.\d+(?:[-+][\w.-]+)?)\b/;

/** The first `x.y.z` version in a CLI's `--version` output ("2.1.197 (Claude Code)" → "2.1.197"). */
export function parseCliVersion(output: string): string | undefined {
  return VERSION.exec(output)?.[1];
}

/** True when `version` is on a release line like `2.1.19x`, `0.61.x` or `0.17x` (`x`: any digits). */
export function onReleaseLine(version: string, line: string): boolean {
  const pattern = line
    .split('x')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\d*');
  return new RegExp(`^${pattern}(?:\\D.*)?$`).test(version);
}

/**
 * A warning when the agent CLI's version is outside every release line the agent's specific
 * classifiers declare as verified (`verifiedVersions`), e.g. "classifier rules were verified
 * for claude-code 2.1.19x–2.1.33x; this is 2.2.0". Undefined when a line matches, when the
 * version is unknown, or when no classifier of the agent declares lines.
 */
export function unverifiedVersionWarning(
  agent: string,
  version: string | undefined,
  classifiers: readonly ClassifierPlugin[],
): string | undefined {
  if (version === undefined) return undefined;
  const lines = classifiers
    .filter((c) => c.agents !== '*' && c.agents.includes(agent))
    .flatMap((c) => c.verifiedVersions ?? []);
  if (lines.length === 0 || lines.some((line) => onReleaseLine(version, line))) return undefined;
  const range = lines.length === 1 ? lines[0] : `${lines[0]}–${lines.at(-1)}`;
  return `classifier rules were verified for ${agent} ${range}; this is ${version}`;
}
