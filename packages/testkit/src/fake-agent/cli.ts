import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FakeAgentExit, type FakeAgentIo, FakeAgentKilled, processIo } from './agent-io.js';
import { formatPrinter } from './formats.js';
import { logPrompt, receivePrompt } from './prompt-input.js';
import {
  type FakeAgentScenario,
  type FakeAgentStep,
  type FakeAgentWhen,
  scenarioSchema,
} from './scenario.js';
import { recordRun } from './state.js';
import { runStep, type StepContext } from './steps.js';

export const FAKE_AGENT_USAGE = `Usage: switchyard-fake-agent --scenario <file.yaml|json> [--resume <session>] [--model <m>] [--state <file>] [prompt]
       switchyard-fake-agent --version   (prints SWITCHYARD_FAKE_AGENT_VERSION, if set)

A scripted stand-in for a coding-agent CLI. The scenario file (or SWITCHYARD_FAKE_AGENT_SCENARIO)
says what to print and do; see the @switchyard/testkit README for the format. Unknown flags are
ignored so catalog argv templates of real CLIs can be reused. The prompt is the last argument,
or stdin when stdin is a file (or a pipe and the prompt is missing or "-"); with
SWITCHYARD_FAKE_AGENT_PROMPT_LOG set, each run appends {via, bytes, sha256, tail} to that file.`;

/**
 * A scenario file's data. JSON (what tests and the demo write) is read with JSON.parse; the YAML
 * parser, which reads anything else, is loaded only then: loading it was the largest part of
 * the fake agent's start-up, paid on every agent run of every test.
 */
function parseScenarioText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const yaml: typeof import('yaml') = createRequire(import.meta.url)('yaml');
    return yaml.parse(text);
  }
}

/** Loads and validates a scenario file (YAML or JSON). */
export function loadScenario(file: string): FakeAgentScenario {
  const parsed = scenarioSchema.safeParse(parseScenarioText(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) => `${file}: ${i.path.join('.') || '(root)'}: ${i.message}`,
    );
    throw new Error(`invalid fake-agent scenario\n${lines.join('\n')}`);
  }
  return parsed.data;
}

interface RunFacts {
  attempt: number;
  role: string;
  target: string;
  task: string;
  resumed: boolean;
  env: NodeJS.ProcessEnv;
}

function matches(when: FakeAgentWhen, facts: RunFacts): boolean {
  if (when.attempt !== undefined && when.attempt !== facts.attempt) return false;
  if (when.role !== undefined && when.role !== facts.role) return false;
  if (when.target !== undefined && when.target !== facts.target) return false;
  if (when.task !== undefined && when.task !== facts.task) return false;
  if (when.resumed !== undefined && when.resumed !== facts.resumed) return false;
  for (const [name, value] of Object.entries(when.env ?? {}))
    if (facts.env[name] !== value) return false;
  return true;
}

/** How a fake-agent run ended: an exit code, or a signal (an in-process run's `kill` or stop). */
export type FakeAgentEnd = { exitCode: number; signal: null } | { exitCode: null; signal: string };

/** Runs the fake agent as a process (its own stdout, stderr, cwd, stdin); returns the exit code. */
export async function runFakeAgentCli(argv: string[], env = process.env): Promise<number> {
  const end = await runFakeAgent(argv, env, processIo());
  return end.exitCode ?? 1;
}

/**
 * Runs the fake agent with CLI arguments on the given io: the spawned CLI passes its own
 * process's, an in-process runner an attempt's files, cwd and stop signal. One implementation
 * of the scenarios for both.
 */
export async function runFakeAgent(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: FakeAgentIo,
): Promise<FakeAgentEnd> {
  const say: Say = (fd, text) => io.write(fd, `${text}\n`);
  const { values, positionals } = parseFakeAgentArgs(argv);
  const answered = answerInfoFlag(values, env, say);
  if (answered) return answered;
  const opened = openScenario(values, env, io, say);
  if ('exitCode' in opened) return opened;
  const run = startRun(opened, values, env, io, say);
  if ('exitCode' in run) return run;
  // the prompt is taken like a real CLI's (argv or stdin) and not interpreted
  const prompt = receivePrompt(positionals, io.stdin);
  if (env.SWITCHYARD_FAKE_AGENT_PROMPT_LOG) logPrompt(env.SWITCHYARD_FAKE_AGENT_PROMPT_LOG, prompt);
  return playSteps(run.steps, run.ctx);
}

type Say = (fd: 1 | 2, text: string) => void;

const exited = (exitCode: number): FakeAgentEnd => ({ exitCode, signal: null });

/** The flags a real CLI takes that the fake agent reads; any other flag is ignored. */
function parseFakeAgentArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    options: {
      scenario: { type: 'string' },
      resume: { type: 'string' },
      model: { type: 'string' },
      state: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  });
}

type FakeAgentArgs = ReturnType<typeof parseFakeAgentArgs>['values'];

/** `--version` and `--help` answer without a scenario. */
function answerInfoFlag(
  values: FakeAgentArgs,
  env: NodeJS.ProcessEnv,
  say: Say,
): FakeAgentEnd | undefined {
  if (values.version) {
    // Stands in for an agent CLI's version line, e.g. "2.1.197 (Claude Code)"; without the
    // variable it names no version (the run then knows none and warns about none).
    const version = env.SWITCHYARD_FAKE_AGENT_VERSION;
    say(1, `${version ? `${version} ` : ''}(switchyard fake agent)`);
    return exited(0);
  }
  if (values.help) {
    say(1, FAKE_AGENT_USAGE);
    return exited(0);
  }
  return undefined;
}

/** The scenario from `--scenario` or the environment; exit 2 when there is none or it is invalid. */
function openScenario(
  values: FakeAgentArgs,
  env: NodeJS.ProcessEnv,
  io: FakeAgentIo,
  say: Say,
): { scenario: FakeAgentScenario; scenarioFile: string } | FakeAgentEnd {
  const scenarioFile =
    (values.scenario as string | undefined) ?? env.SWITCHYARD_FAKE_AGENT_SCENARIO;
  if (!scenarioFile) {
    say(2, `switchyard-fake-agent: no scenario given\n${FAKE_AGENT_USAGE}`);
    return exited(2);
  }
  try {
    return { scenario: loadScenario(resolve(io.cwd, scenarioFile)), scenarioFile };
  } catch (error) {
    say(2, `switchyard-fake-agent: ${(error as Error).message}`);
    return exited(2);
  }
}

/**
 * Records this run in the state file (its attempt number per role, task and target) and picks
 * the steps of the first case that matches; exit 1 when `--resume` names an unknown session.
 */
function startRun(
  { scenario, scenarioFile }: { scenario: FakeAgentScenario; scenarioFile: string },
  values: FakeAgentArgs,
  env: NodeJS.ProcessEnv,
  io: FakeAgentIo,
  say: Say,
): { steps: FakeAgentStep[]; ctx: StepContext } | FakeAgentEnd {
  const resume = values.resume as string | undefined;
  const sessionId = resume ?? scenario.sessionId ?? randomUUID();
  const stateFile = resolve(
    io.cwd,
    (values.state as string | undefined) ??
      env.SWITCHYARD_FAKE_AGENT_STATE ??
      `${scenarioFile}.state.jsonl`,
  );
  const key = {
    role: env.SWITCHYARD_ROLE ?? '',
    task: env.SWITCHYARD_TASK_ID ?? '',
    target: env.SWITCHYARD_TARGET_ID ?? '',
  };
  const { attempt, sessions } = recordRun(stateFile, key, sessionId, io.pid);
  if (resume !== undefined && !sessions.has(resume)) {
    say(2, `No conversation found with session ID: ${resume}`);
    return exited(1);
  }
  const facts: RunFacts = { ...key, attempt, resumed: resume !== undefined, env };
  const steps = scenario.cases.find((c) => matches(c.when, facts))?.steps ?? scenario.steps;
  const workspace = env.SWITCHYARD_WORKSPACE ?? io.cwd;
  const model = (values.model as string | undefined) ?? 'fake-model';
  const printer = formatPrinter(scenario.format, sessionId, workspace, model);
  const ctx: StepContext = {
    format: scenario.format,
    textOf: scenario.textOf,
    printer,
    sessionId,
    workspace,
    env,
    io,
  };
  return { steps, ctx };
}

/** The format's opening lines, the steps, then a result "done"; an exit step or a kill ends it sooner. */
async function playSteps(steps: FakeAgentStep[], ctx: StepContext): Promise<FakeAgentEnd> {
  try {
    for (const line of ctx.printer.init()) await runStep({ print: line, stream: 'stdout' }, ctx);
    for (const step of steps) await runStep(step, ctx);
    await runStep({ result: 'done' }, ctx);
  } catch (error) {
    if (error instanceof FakeAgentExit) return exited(error.code);
    if (error instanceof FakeAgentKilled) return { exitCode: null, signal: error.signal };
    throw error;
  }
  return exited(0);
}
