import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The built CLI and fake agent (run `pnpm build` first; the test script does). */
export const CLI = join(root, 'packages/cli/dist/bin.js');
export const FAKE_AGENT = join(root, 'packages/testkit/dist/fake-agent-bin.js');

const ROUTES = [
  ...['local', 'cloud'].flatMap((k) =>
    Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
  ),
];

/** A fake-agent scenario (see the @switchyard/testkit README). */
export type Scenario = Record<string, unknown>;

/** A catalog target driven by a fake-agent scenario. */
export interface FakeTarget {
  scenario: Scenario;
  /** Catalog agent identity (selects classifiers); default claude-code. */
  agent?: string;
  selfcheck?: boolean;
  /** Give the target a resume_command (native context resume). */
  resume?: boolean;
  /** Catalog `native_session_monitor` mechanism name. */
  native?: string;
  /** Catalog `session_path`: where the agent's native session files live. */
  sessionPath?: string;
}

/** A temporary workspace with agent-task/, a catalog of fake targets and a fast retry config. */
export class Workspace {
  readonly dir = mkdtempSync(join(tmpdir(), 'sy-e2e-'));
  readonly catalogFile = join(this.dir, '.catalog.json');

  constructor() {
    mkdirSync(join(this.dir, 'agent-task'), { recursive: true });
    // The test's own files (catalog, scenarios and the fake agents' state beside them) are no
    // part of the project: outside git too, the write-set check leaves out what is ignored.
    writeFileSync(join(this.dir, '.gitignore'), '.catalog.json\n.scenario-*\n');
    this.config({});
  }

  /** Writes switchyard.config.json (fast retries unless overridden). */
  config(extra: Record<string, unknown>): void {
    writeFileSync(
      join(this.dir, 'switchyard.config.json'),
      JSON.stringify({ retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...extra }, null, 2),
    );
  }

  /** Writes the catalog: every route of both stages has `candidates` (default: all targets in order). */
  catalog(
    targets: Record<string, FakeTarget>,
    candidates = Object.keys(targets),
    reviewCandidates = candidates,
  ): void {
    const built: Record<string, unknown> = {};
    for (const [id, t] of Object.entries(targets)) {
      const scenarioFile = join(this.dir, `.scenario-${id}.json`);
      const agent = t.agent ?? 'claude-code';
      writeFileSync(
        scenarioFile,
        JSON.stringify({ format: agent === 'text' ? 'text' : agent, ...t.scenario }),
      );
      const base = [process.execPath, FAKE_AGENT, '--scenario', scenarioFile, '--model', '{model}'];
      built[id] = {
        agent,
        model: `model-${id}`,
        execution_class: 'cloud_model',
        selfcheck_required: t.selfcheck ?? false,
        runtime: {
          command: [...base, '{prompt}'],
          ...(t.resume
            ? { resume_command: [...base, '--resume', '{session_id}', '{prompt}'] }
            : {}),
          ...(t.native ? { native_session_monitor: t.native } : {}),
          ...(t.sessionPath ? { session_path: t.sessionPath } : {}),
          output_format: agent === 'text' ? 'text' : 'jsonl',
        },
      };
    }
    const routes = (list: string[]) =>
      Object.fromEntries(ROUTES.map((r) => [r, { candidates: list }]));
    writeFileSync(
      this.catalogFile,
      JSON.stringify(
        {
          schema_version: 1,
          targets: built,
          routes: { worker: routes(candidates), review: routes(reviewCandidates) },
        },
        null,
        2,
      ),
    );
  }

  /** Writes agent-task/<id>/PLAN.md (or PLAN-<loop>.md). */
  task(
    id: string,
    opts: {
      route?: string;
      dependsOn?: string[];
      files: string[];
      checklist?: string[];
      target?: string;
      maxPlanLoops?: number;
      done?: { command: string; assertion: string };
    },
  ): string {
    const dir = join(this.dir, 'agent-task', id);
    mkdirSync(dir, { recursive: true });
    const fm = [
      `route: ${opts.route ?? 'cloud-G01'}`,
      ...(opts.dependsOn ? [`depends_on: [${opts.dependsOn.join(', ')}]`] : []),
      ...(opts.target ? [`target: ${opts.target}`] : []),
      ...(opts.maxPlanLoops ? [`max_plan_loops: ${opts.maxPlanLoops}`] : []),
    ];
    const body = [
      '---',
      ...fm,
      '---',
      `# ${id}`,
      '',
      '## Modified Files Summary',
      '',
      ...opts.files.map((f) => `- ${f}`),
      '',
      '## Implementation Checklist',
      '',
      ...(opts.checklist ?? ['do the work']).map((c) => `- [ ] ${c}`),
      '',
      ...(opts.done
        ? [
            '## Definition of Done',
            '',
            `Command: \`${opts.done.command}\``,
            `Assertion: ${opts.done.assertion}`,
            '',
          ]
        : []),
    ].join('\n');
    const file = join(dir, 'PLAN.md');
    writeFileSync(file, body);
    return file;
  }

  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  exists(...parts: string[]): boolean {
    return existsSync(this.path(...parts));
  }

  read(...parts: string[]): string {
    return readFileSync(this.path(...parts), 'utf8');
  }

  /** Every event of every run on this workspace (events.jsonl). */
  events(): Array<Record<string, unknown> & { type: string }> {
    const file = this.path('agent-task', '.switchyard', 'events.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }

  /** Attempt directories that keep their full evidence (failed ones, and unfinished tasks). */
  attempts(): string[] {
    const dir = this.path('agent-task', '.switchyard', 'attempts');
    // A successful attempt of an archived task keeps only what the logs cite (locator,
    // prompt, transcript); its full evidence (raw output) is gone.
    return existsSync(dir)
      ? readdirSync(dir)
          .filter((a) => existsSync(join(dir, a, 'stdout.raw')))
          .sort()
      : [];
  }

  /** Runs `switchyard run` on this workspace with the test catalog. */
  run(
    args: string[] = [],
    opts: { env?: Record<string, string>; onSpawn?: (pid: number) => void } = {},
  ): Promise<RunResult> {
    return runCli(
      ['run', '--workspace', this.dir, '--execution-catalog', this.catalogFile, ...args],
      opts,
    );
  }
}

/** A fake-agent case: every review approves. */
export const APPROVE: Scenario = {
  when: { role: 'review' },
  steps: [{ review: 'Verdict: APPROVED\n' }],
};

/** What {@link agentWorkspace} sets up besides its defaults. */
export interface AgentWorkspaceSetup {
  /** Project config keys (fast retries are always set). */
  config?: Record<string, unknown>;
  /** The review's case; default {@link APPROVE}. */
  review?: Scenario;
  /** Further cases of target `a`, tried after the review's. */
  cases?: Scenario[];
  /** What every other attempt of `a` does; default: tick the checklist. */
  steps?: unknown[];
}

/**
 * The set-up most end-to-end tests share: a workspace with one fake target `a` whose reviews
 * approve and whose other attempts tick the checklist, unless `cases`/`steps` say otherwise.
 */
export function agentWorkspace(setup: AgentWorkspaceSetup = {}): Workspace {
  const ws = new Workspace();
  if (setup.config) ws.config(setup.config);
  ws.catalog({
    a: {
      scenario: {
        cases: [setup.review ?? APPROVE, ...(setup.cases ?? [])],
        steps: setup.steps ?? [{ fillChecklist: true }],
      },
    },
  });
  return ws;
}

/** Exit code and output of a CLI run. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns the built CLI with Node 24 (the vitest process's own node). */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; onSpawn?: (pid: number) => void } = {},
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? root,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    stopWhenTestEnds(child);
    if (child.pid) opts.onSpawn?.(child.pid);
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
}

/**
 * Waits for a condition the processes under test bring about, polling every 25 ms. No
 * deadline of its own: the test's time-out ends the wait (and `stopWhenTestEnds` the
 * processes), so a slow, loaded machine only makes it wait longer.
 */
export async function until(check: () => boolean, what = 'the condition'): Promise<void> {
  let over = false;
  try {
    onTestFinished(() => {
      over = true;
    });
  } catch {
    // not inside a running test
  }
  while (!check()) {
    if (over) throw new Error(`the test ended before ${what} held`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Index of the first event matching, or -1. */
export function indexOfEvent(
  events: Array<Record<string, unknown>>,
  match: Record<string, unknown>,
): number {
  return events.findIndex((e) => Object.entries(match).every(([k, v]) => e[k] === v));
}

/**
 * A test that ends (a timeout included) while the process it started still runs stops it: an
 * interrupt first (a dispatcher then stops its agents and keeps its state), a kill after 10 s.
 * Outside a test (a `beforeAll`) nothing is registered.
 */
export function stopWhenTestEnds(child: ChildProcess): void {
  try {
    onTestFinished(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const closed = new Promise<void>((r) => child.once('close', () => r()));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await closed;
      clearTimeout(timer);
    });
  } catch {
    // not inside a running test
  }
}
