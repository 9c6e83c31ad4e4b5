import { basename } from 'node:path';
import type { CatalogTarget } from '@switchyard/catalog';
import type { ClassifierPlugin, Problem } from '@switchyard/core';
import { parseCliVersion, unverifiedVersionWarning } from '@switchyard/runner-kit';
import { expandEnvironmentValue } from '@switchyard/utils';
import { execa } from 'execa';
import { KNOWN_AGENTS } from './known-agents.js';

/** True when `executable` is the known CLI of `agent` (by file name, e.g. `/usr/bin/claude`). */
function isAgentCli(agent: string, executable: string): boolean {
  return KNOWN_AGENTS.some((a) => a.agent === agent && a.command === basename(executable));
}

/** The version one target's agent CLI reported. */
export interface AgentVersion {
  targetId: string;
  agent: string;
  /** What ran: the agent CLI, then `--version`. */
  command: string[];
  /** `x.y.z` from its output; undefined when it printed none or failed. */
  version?: string;
}

/** Agents whose classifiers name the release lines they were verified on. */
export function agentsWithVerifiedLines(classifiers: readonly ClassifierPlugin[]): Set<string> {
  return new Set(
    classifiers.flatMap((c) =>
      c.agents !== '*' && (c.verifiedVersions?.length ?? 0) > 0 ? [...c.agents] : [],
    ),
  );
}

/**
 * Asks the agent CLI of each target whose agent has verified release lines (`agents`) for its
 * version (`<command[0]> --version`, once per distinct executable and environment, in
 * parallel, stdin closed, 10 s at most) — only when `command[0]` is that agent's own CLI
 * (`claude` for claude-code…, by file name). A target run through anything else (a wrapper
 * script, an interpreter) is not asked: that command must not be started outside an attempt.
 * A CLI that fails or prints no version is simply unknown: the run does not depend on it.
 */
export async function probeAgentVersions(
  all: readonly (readonly [string, CatalogTarget])[],
  agents: ReadonlySet<string>,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal; timeoutMs?: number },
): Promise<AgentVersion[]> {
  const targets = all.filter(
    ([, t]) => agents.has(t.agent) && isAgentCli(t.agent, t.runtime.command[0] ?? ''),
  );
  const base = opts.env ?? process.env;
  const asked = new Map<string, Promise<string | undefined>>();
  const ask = (argv: string[], env: NodeJS.ProcessEnv) => {
    const key = JSON.stringify([argv, env === base ? null : env]);
    let answer = asked.get(key);
    if (!answer) {
      const [file = '', ...args] = argv;
      answer = execa(file, [...args, '--version'], {
        cwd: opts.cwd,
        env,
        extendEnv: false,
        stdin: 'ignore',
        reject: false,
        all: true,
        timeout: opts.timeoutMs ?? 10_000,
        ...(opts.signal ? { cancelSignal: opts.signal } : {}),
      }).then((r) =>
        r.exitCode === 0 && typeof r.all === 'string' ? parseCliVersion(r.all) : undefined,
      );
      asked.set(key, answer);
    }
    return answer;
  };
  return Promise.all(
    targets.map(async ([targetId, target]) => {
      const program = target.runtime.command.slice(0, 1);
      const extra = Object.entries(target.runtime.environment ?? {});
      const env =
        extra.length === 0
          ? base
          : {
              ...base,
              ...Object.fromEntries(
                extra.map(([k, v]) => [k, expandEnvironmentValue(v, base).value]),
              ),
            };
      const version = await ask(program, env);
      return {
        targetId,
        agent: target.agent,
        command: [...program, '--version'],
        ...(version ? { version } : {}),
      };
    }),
  );
}

/** A warning per agent whose version is outside its classifiers' verified release lines. */
export function versionWarnings(
  versions: readonly AgentVersion[],
  classifiers: readonly ClassifierPlugin[],
): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const v of versions) {
    const message = unverifiedVersionWarning(v.agent, v.version, classifiers);
    if (!message || seen.has(message)) continue;
    seen.add(message);
    problems.push({
      code: 'SY_AGENT_VERSION_UNVERIFIED',
      severity: 'warning',
      path: `targets.${v.targetId}`,
      message: `${message} (\`${v.command.join(' ')}\`)`,
      hint: 'failures may be classified less precisely (e.g. a provider fault taken for a task error); report the output with `switchyard classify` if one is',
    });
  }
  return problems;
}

/** Target id → version, for the dispatcher (only the versions that are known). */
export const versionsByTarget = (versions: readonly AgentVersion[]): Record<string, string> =>
  Object.fromEntries(versions.flatMap((v) => (v.version ? [[v.targetId, v.version]] : [])));
