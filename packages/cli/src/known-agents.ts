import { findExecutable } from '@switchyard/catalog';
import type { Problem } from '@switchyard/core/dry-run';
import { execa } from 'execa';
import { closest, distance } from 'fastest-levenshtein';

/** An agent CLI switchyard knows: the catalog `agent` identity and the command it installs. */
export interface KnownAgent {
  /** The catalog `agent` value (what classifier plugins serve). */
  agent: string;
  /** The executable on PATH. */
  command: string;
  label: string;
}

/**
 * The agent CLIs `catalog init` looks for and `catalog validate` knows by name. One entry
 * per CLI: adding an agent is adding a line here (and its targets to the bundled catalog).
 */
export const KNOWN_AGENTS: readonly KnownAgent[] = [
  { agent: 'claude-code', command: 'claude', label: 'Claude Code' },
  { agent: 'codex', command: 'codex', label: 'Codex' },
  { agent: 'gemini-cli', command: 'gemini', label: 'Gemini CLI' },
  { agent: 'qwen-code', command: 'qwen', label: 'Qwen Code' },
  { agent: 'copilot', command: 'copilot', label: 'Copilot CLI' },
];

/** A known agent CLI as found on this machine. */
export interface DetectedAgent extends KnownAgent {
  /** Where the command is, when installed. */
  path?: string;
  /** First line of `<command> --version`, when it answered. */
  version?: string;
}

/** Looks for every known agent CLI on PATH and asks each installed one for its version. */
export async function detectAgents(env: NodeJS.ProcessEnv, cwd: string): Promise<DetectedAgent[]> {
  return Promise.all(
    KNOWN_AGENTS.map(async (known) => {
      const path = findExecutable(known.command, env, cwd);
      if (!path) return { ...known };
      const result = await execa(path, ['--version'], {
        reject: false,
        timeout: 10_000,
        stdin: 'ignore',
        env,
        extendEnv: false,
      });
      const version = String(result.stdout).trim().split('\n')[0]?.trim();
      return { ...known, path, ...(result.exitCode === 0 && version ? { version } : {}) };
    }),
  );
}

/** The known agent name closest to a misspelt one (`claude` → `claude-code`), if any is close. */
export function closestKnownAgent(name: string): string | undefined {
  const names = KNOWN_AGENTS.map((a) => a.agent);
  const byCommand = KNOWN_AGENTS.find((a) => a.command === name);
  if (byCommand) return byCommand.agent;
  const best = closest(name, names);
  return distance(name, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** True for an `agent` value no known CLI uses. */
export const isUnknownAgent = (name: string): boolean =>
  !KNOWN_AGENTS.some((a) => a.agent === name);

/**
 * Warnings for targets whose `agent` looks like a misspelt known agent (`claude` for
 * `claude-code`) and that no plugin serves: their failures would be read by the generic rules
 * only. Names far from every known agent are taken as deliberate (a plugin's own agent).
 */
export function agentTypoWarnings(
  targets: Readonly<Record<string, { agent: string }>>,
  served: (agent: string) => boolean,
): Problem[] {
  return Object.entries(targets).flatMap(([id, t]) => {
    if (!isUnknownAgent(t.agent) || served(t.agent)) return [];
    const near = closestKnownAgent(t.agent);
    if (!near) return [];
    return [
      {
        code: 'SY_CATALOG_INVALID' as const,
        severity: 'warning' as const,
        path: `targets.${id}.agent`,
        message: `target "${id}": agent "${t.agent}" is not a known agent; did you mean "${near}"?`,
        hint: `its failures are classified by the generic rules only; known agents: ${KNOWN_AGENTS.map((a) => a.agent).join(', ')}`,
      },
    ];
  });
}
