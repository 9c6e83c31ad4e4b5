import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until as waitUntil } from '../dispatcher/helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
/** The built CLI and fake agent (`pnpm build` first; the test script does). */
export const CLI = join(root, 'packages/cli/dist/bin.js');
export const FAKE_AGENT = join(root, 'packages/testkit/dist/fake-agent-bin.js');
/** Wrapper that logs start/end of every agent execution (see stage-log.sh). */
export const STAGE_LOG_SH = join(here, 'stage-log.sh');

const ROUTES = ['local', 'cloud'].flatMap((k) =>
  Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
);

/** mulberry32: a small seeded RNG, so a failing trial can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A plan to write under agent-task/<id>/PLAN.md. */
export interface PlanSpec {
  files: string[];
  dependsOn?: string[];
  route?: string;
  checklist?: string[];
}

/** The text of a PLAN.md (front matter, write set, checklist). */
export function planText(id: string, spec: PlanSpec): string {
  return [
    '---',
    `route: ${spec.route ?? 'cloud-G01'}`,
    ...(spec.dependsOn ? [`depends_on: [${spec.dependsOn.join(', ')}]`] : []),
    '---',
    `# ${id}`,
    '',
    '## Modified Files Summary',
    '',
    ...spec.files.map((f) => `- ${f}`),
    '',
    '## Implementation Checklist',
    '',
    ...(spec.checklist ?? ['do the work']).map((c) => `- [ ] ${c}`),
    '',
  ].join('\n');
}

/** A temporary workspace whose agents are the fake agent run through stage-log.sh. */
export class TrialWorkspace {
  readonly dir: string;
  readonly catalogFile: string;
  readonly stageLog: string;

  constructor(prefix = 'sy-recovery-') {
    this.dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    this.catalogFile = join(this.dir, '.catalog.json');
    this.stageLog = join(this.dir, '.stage-log.jsonl');
    mkdirSync(join(this.dir, 'agent-task'), { recursive: true });
    // The trial's own files are no part of the project: the write-set check leaves them out.
    writeFileSync(
      join(this.dir, '.gitignore'),
      '.catalog.json\n.scenario-*\n.stage-log.jsonl\n.release-*\n',
    );
    writeFileSync(this.stageLog, '');
    this.config({});
  }

  /** switchyard.config.json: fast retries, no stall watchdog within a trial's lifetime. */
  config(extra: Record<string, unknown>): void {
    writeFileSync(
      join(this.dir, 'switchyard.config.json'),
      JSON.stringify({
        retry: { baseDelayMs: 5, maxDelayMs: 40 },
        stallTimeoutMs: 120_000,
        ...extra,
      }),
    );
  }

  /** Catalog: each target runs the fake agent with its scenario; every route lists `order`. */
  catalog(targets: Record<string, Record<string, unknown>>, order = Object.keys(targets)): void {
    const built: Record<string, unknown> = {};
    for (const [id, scenario] of Object.entries(targets)) {
      const scenarioFile = join(this.dir, `.scenario-${id}.json`);
      writeFileSync(scenarioFile, JSON.stringify({ format: 'claude-code', ...scenario }));
      built[id] = {
        agent: 'claude-code',
        model: `model-${id}`,
        execution_class: 'cloud_model',
        runtime: {
          command: [
            '/bin/sh',
            STAGE_LOG_SH,
            this.stageLog,
            process.execPath,
            FAKE_AGENT,
            '--scenario',
            scenarioFile,
            '{prompt}',
          ],
          output_format: 'jsonl',
        },
      };
    }
    const routes = Object.fromEntries(ROUTES.map((r) => [r, { candidates: order }]));
    writeFileSync(
      this.catalogFile,
      JSON.stringify(
        { schema_version: 1, targets: built, routes: { worker: routes, review: routes } },
        null,
        1,
      ),
    );
  }

  task(id: string, spec: PlanSpec): void {
    const dir = join(this.dir, 'agent-task', id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'PLAN.md'), planText(id, spec));
  }

  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  exists(...parts: string[]): boolean {
    return existsSync(this.path(...parts));
  }

  /** Starts `switchyard run` (or `retry`) on the workspace (Node 24, the test's own node). */
  start(args: string[] = [], command: 'run' | 'retry' = 'run'): Dispatcher {
    return new Dispatcher(
      spawn(
        process.execPath,
        [CLI, command, '--workspace', this.dir, '--execution-catalog', this.catalogFile, ...args],
        { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );
  }

  /** Every parsable line of events.jsonl (a SIGKILL may tear the last line of a run). */
  events(): Array<Record<string, unknown> & { type: string }> {
    return jsonLines(this.path('agent-task', '.switchyard', 'events.jsonl'));
  }

  /** The stage log written by stage-log.sh. */
  stages(): StageLine[] {
    return jsonLines(this.stageLog) as unknown as StageLine[];
  }

  /** The persisted claims (task -> paths). */
  claims(): Record<string, unknown> {
    const file = this.path('agent-task', '.switchyard', 'claims', 'claims.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).tasks ?? {}) : {};
  }
}

/** One line of the stage log. */
export interface StageLine {
  ev: 'start' | 'end';
  t: number;
  pid: number;
  task: string;
  role: string;
  attempt: string;
  rc?: number;
}

function jsonLines(file: string): Array<Record<string, unknown> & { type: string }> {
  if (!existsSync(file)) return [];
  const out: Array<Record<string, unknown> & { type: string }> = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a line torn by SIGKILL: not an event
    }
  }
  return out;
}

/** A running dispatcher process and its collected output. */
export class Dispatcher {
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d) => {
      this.stdout += d;
    });
    child.stderr?.on('data', (d) => {
      this.stderr += d;
    });
    this.exited = new Promise((res) => child.on('close', (code, signal) => res({ code, signal })));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  kill(signal: NodeJS.Signals): void {
    try {
      process.kill(this.pid, signal);
    } catch {
      // already exited
    }
  }
}

/** Execution intervals per task from the stage log; an execution without an end is open. */
export interface Execution {
  task: string;
  role: string;
  attempt: string;
  pid: number;
  start: number;
  end: number | undefined;
}

export function executions(lines: readonly StageLine[]): Execution[] {
  const open = new Map<string, Execution>();
  const all: Execution[] = [];
  for (const line of lines) {
    const key = `${line.pid}:${line.attempt}`;
    if (line.ev === 'start') {
      const exec: Execution = {
        task: line.task,
        role: line.role,
        attempt: line.attempt,
        pid: line.pid,
        start: line.t,
        end: undefined,
      };
      open.set(key, exec);
      all.push(exec);
    } else {
      const exec = open.get(key);
      if (exec) exec.end = line.t;
      open.delete(key);
    }
  }
  return all;
}

/** Pairs of executions with the same key (default: the task) that overlapped in time; an
 * execution without an end never ends. */
export function overlaps(
  execs: readonly Execution[],
  keyOf: (e: Execution) => string = (e) => e.task,
): Array<[Execution, Execution]> {
  const found: Array<[Execution, Execution]> = [];
  const byTask = new Map<string, Execution[]>();
  for (const e of execs) byTask.set(keyOf(e), [...(byTask.get(keyOf(e)) ?? []), e]);
  for (const list of byTask.values()) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i]!;
      if (prev.end === undefined || prev.end > cur.start) found.push([prev, cur]);
    }
  }
  return found;
}

/** Live (non-zombie) processes whose environment names this workspace: agents of its runs. */
export function agentProcesses(workspace: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state !== 'Z' && env.includes(`SWITCHYARD_WORKSPACE=${workspace}\0`))
        pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `check` holds; bounded only by the test's time-out (see `until` in helpers). */
export const until = (check: () => boolean, what = 'the condition'): Promise<void> =>
  waitUntil(check, what);
