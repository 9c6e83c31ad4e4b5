import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Classification,
  type Problem,
  SwitchyardError,
  type TerminalEvidence,
} from '@switchyard/core';
import type { EvidenceCollector } from '@switchyard/runner-kit';

export interface ClassifyOptions {
  agent?: string;
  outputFormat?: string;
  exitCode?: string;
  stdout?: string;
  stderr?: string;
  signal?: string;
  endedBy?: string;
  endedAt?: string;
  timeZone?: string;
  workspace?: string;
  json?: boolean;
}

const ENDED_BY = ['stall', 'retry-loop', 'time-limit', 'cancel'] as const;
type EndedBy = (typeof ENDED_BY)[number];

interface RunInput {
  agent: string;
  outputFormat: 'text' | 'jsonl';
  exitCode: number | null;
  signal: string | null;
  endedBy?: EndedBy;
  endedAt?: Date;
  feed(collector: EvidenceCollector): Promise<void>;
}

async function readInput(path: string, flag: string, problems: Problem[]): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    problems.push({
      code: 'SY_USAGE',
      message: `${flag} ${path}: ${(error as Error).message}`,
      hint: 'Pass a readable file.',
    });
    return Buffer.alloc(0);
  }
}

/** Input from flags; every problem is collected before failing. */
async function fromFlags(opts: ClassifyOptions): Promise<RunInput> {
  const problems: Problem[] = [];
  if (!opts.agent)
    problems.push({
      code: 'SY_USAGE',
      message: '--agent is required without an attempt directory',
      hint: 'e.g. --agent claude-code',
    });
  const format = opts.outputFormat ?? 'text';
  if (format !== 'text' && format !== 'jsonl')
    problems.push({
      code: 'SY_USAGE',
      message: `--output-format must be text or jsonl, not "${format}"`,
    });
  const exit = opts.exitCode === undefined ? undefined : Number(opts.exitCode);
  if (opts.exitCode === undefined && !opts.signal)
    problems.push({
      code: 'SY_USAGE',
      message: '--exit-code (or --signal) is required',
      hint: 'e.g. --exit-code 1',
    });
  if (exit !== undefined && !Number.isInteger(exit))
    problems.push({
      code: 'SY_USAGE',
      message: `--exit-code must be an integer, not "${opts.exitCode}"`,
    });
  if (!opts.stdout && !opts.stderr)
    problems.push({
      code: 'SY_USAGE',
      message: 'give --stdout and/or --stderr',
      hint: 'Files holding what the agent printed.',
    });
  const stdout = opts.stdout ? await readInput(opts.stdout, '--stdout', problems) : Buffer.alloc(0);
  const stderr = opts.stderr ? await readInput(opts.stderr, '--stderr', problems) : Buffer.alloc(0);
  const common = commonFlags(opts, problems);
  if (problems.length > 0) throw usage(problems);
  return {
    agent: opts.agent!,
    outputFormat: format as 'text' | 'jsonl',
    exitCode: exit ?? null,
    signal: opts.signal ?? null,
    ...common,
    feed: async (c) => {
      c.write('stdout', stdout);
      c.write('stderr', stderr);
    },
  };
}

function commonFlags(
  opts: ClassifyOptions,
  problems: Problem[],
): { endedBy?: EndedBy; endedAt?: Date } {
  const out: { endedBy?: EndedBy; endedAt?: Date } = {};
  if (opts.endedBy !== undefined) {
    if ((ENDED_BY as readonly string[]).includes(opts.endedBy))
      out.endedBy = opts.endedBy as EndedBy;
    else
      problems.push({
        code: 'SY_USAGE',
        message: `--ended-by must be one of ${ENDED_BY.join(', ')}`,
      });
  }
  if (opts.endedAt !== undefined) {
    const at = new Date(opts.endedAt);
    if (Number.isNaN(at.getTime()))
      problems.push({
        code: 'SY_USAGE',
        message: `--ended-at is not an ISO time: "${opts.endedAt}"`,
      });
    else out.endedAt = at;
  }
  if (opts.timeZone !== undefined && !isZone(opts.timeZone)) {
    problems.push({
      code: 'SY_USAGE',
      message: `--time-zone is not an IANA zone: "${opts.timeZone}"`,
      hint: 'e.g. Europe/Berlin',
    });
  }
  return out;
}

function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function usage(problems: Problem[]): SwitchyardError {
  return new SwitchyardError('SY_USAGE', problems.map((p) => p.message).join('; '), {
    problems,
    hint: 'Run `switchyard classify --help` for usage and examples.',
  });
}

/** Input from an attempt directory: the locator gives agent/format/exit, stream.log the bytes. */
async function fromAttemptDir(dir: string, opts: ClassifyOptions): Promise<RunInput> {
  const kit = await import('@switchyard/runner-kit');
  const problems: Problem[] = [];
  const common = commonFlags(opts, problems);
  if (problems.length > 0) throw usage(problems);
  const locator = await kit.readLocator(dir);
  const streamLog = kit.attemptPaths(dir).stream;
  return {
    agent: opts.agent ?? locator.agent,
    outputFormat: locator.runtime.outputFormat,
    exitCode: locator.exitCode ?? null,
    signal: locator.signal ?? null,
    endedBy: common.endedBy ?? locator.endedBy,
    endedAt: common.endedAt ?? (locator.endedAt ? new Date(locator.endedAt) : undefined),
    feed: async (c) => {
      for await (const frame of kit.readStreamLog(streamLog)) c.write(frame.stream, frame.data);
    },
  };
}

/** Loads the plugins (built-ins + project config), classifies and prints the verdict. */
export async function classifyCommand(
  dir: string | undefined,
  opts: ClassifyOptions,
): Promise<void> {
  const kit = await import('@switchyard/runner-kit');
  const configLib = await import('@switchyard/config');
  const input =
    dir === undefined ? await fromFlags(opts) : await fromAttemptDir(resolve(dir), opts);
  const { BUILTIN_PLUGINS } = await import('../builtin-plugins.js');
  const workspace = await (await import('../command-workspace.js')).commandWorkspace(
    opts.workspace,
  );
  const { config, filepath } = await configLib.loadProjectConfig(workspace);
  const plugins = new kit.PluginSet(
    await kit.loadPlugins({
      entries: config.plugins,
      ...(filepath ? { configDir: dirname(filepath), configFile: filepath } : {}),
      fallbackDir: dirname(fileURLToPath(import.meta.url)),
      builtins: BUILTIN_PLUGINS,
    }),
  );
  const collector = new kit.EvidenceCollector({
    agent: input.agent,
    outputFormat: input.outputFormat,
    isRetryLine: plugins.isRetryLineFor(input.agent),
  });
  await input.feed(collector);
  const evidence = collector.finish(input);
  const verdict = await kit.classifyEvidence(evidence, plugins.classifiersFor(input.agent), {
    endedAt: input.endedAt ?? new Date(),
    timeZone: opts.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
  const { terminalText } = await import('@switchyard/utils');
  print(verdict, evidence, opts.json === true, terminalText);
}

/** `shown`: the agent's text as a terminal may print it (its control characters as escapes). */
function print(
  verdict: Classification,
  evidence: TerminalEvidence,
  json: boolean,
  shown: (text: string) => string,
): void {
  if (json) {
    const out = {
      ...verdict,
      agent: evidence.agent,
      exitCode: evidence.exitCode,
      signal: evidence.signal,
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const lines = [
    `class:       ${verdict.class} (${verdict.confidence})`,
    `classifier:  ${verdict.classifier ?? '-'}`,
    ...(verdict.retryAfter ? [`retry after: ${verdict.retryAfter}`] : []),
    `evidence:${verdict.evidence.length === 0 ? ' (none: clean exit)' : ''}`,
    ...verdict.evidence.map((l) => `  ${shown(l.length > 400 ? `${l.slice(0, 400)}…` : l)}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
