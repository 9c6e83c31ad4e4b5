// Monitor benchmark (issue 14, "Scale"): goals, checked against baselines measured here.
//  1. First render of the page with 1,000 tasks <= 1 s (navigation start to the first
//     complete render: lanes, cards and dependency edges), in headless Chromium; baseline:
//     the same page with 10 tasks. Also the time a click on a task takes to show its detail.
//  2. Server CPU with 32 agents streaming <= 2 % of a core: `switchyard monitor` in its own
//     process with a page connected, while 32 writers append agent output to 32 attempt
//     folders (20 lines/s each) and the event log grows by one attempt event per second;
//     baseline: an idle Node process over the same time (the floor of any Node server).
// Run from the repo root after `pnpm build`:  node test/bench/monitor.mjs
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import { generateWorkspace } from './dry-run-workspace.mjs';

const ROOT = resolve('.');
const CLI = join(ROOT, 'packages/cli/dist/bin.js');
const PRELOAD = join(ROOT, 'test/bench/cpu-usage-preload.mjs');
const CHROMIUM = process.env.SWITCHYARD_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const STREAM_SECONDS = Number(process.env.MONITOR_BENCH_SECONDS ?? 20);
const tmp = mkdtempSync(join(tmpdir(), 'sy-bench-monitor-'));

/** A workspace of `tasks` tasks with an event log: attempts (with usage) and failovers. */
function workspace(name, tasks) {
  const { ws } = generateWorkspace(join(tmp, name), tasks);
  const dir = join(ws, 'agent-task', '.switchyard');
  mkdirSync(dir, { recursive: true });
  const lines = [];
  const at = new Date().toISOString();
  for (let i = 0; i < tasks; i += 2) {
    const task = `g${String(Math.floor(i / 100)).padStart(3, '0')}/task-${String(i).padStart(5, '0')}`;
    const attempt = `a${i}`;
    const base = { at, runId: 'bench', task, role: 'worker', planLoop: 1, attempt, target: 't-a' };
    lines.push({
      ...base,
      type: 'attempt.started',
      agent: 'bench',
      model: 'a',
      attemptDir: join(dir, 'attempts', attempt),
    });
    lines.push({
      ...base,
      type: 'attempt.finished',
      result: i % 10 === 0 ? 'provider-quota' : 'success',
      exitCode: 0,
      signal: null,
      evidence: ['429 rate limit'],
      durationMs: 1000,
      attemptDir: join(dir, 'attempts', attempt),
      usage: { inputTokens: 1000, outputTokens: 200, costUsd: 0.01 },
    });
    if (i % 10 === 0)
      lines.push({
        at,
        runId: 'bench',
        type: 'target.failover',
        task,
        stage: 'worker',
        from: 't-a',
        to: 't-b',
        class: 'provider-quota',
        evidence: ['429 rate limit'],
      });
  }
  appendFileSync(join(dir, 'events.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  // A persisted state for every task that ran (as a dispatcher leaves them).
  for (const l of lines) {
    if (l.type !== 'attempt.finished') continue;
    const [group, name] = l.task.split('/');
    mkdirSync(join(dir, 'tasks', group), { recursive: true });
    writeFileSync(
      join(dir, 'tasks', group, `${name}.json`),
      JSON.stringify({
        schema_version: 1,
        task: l.task,
        planLoop: 1,
        phase: 'selfcheck',
        decisions: {},
        attempts: [
          {
            id: l.attempt,
            role: 'worker',
            planLoop: 1,
            target: 't-a',
            attemptDir: l.attemptDir,
            status: 'finished',
            startedAt: at,
            endedAt: at,
            result: 'success',
            usage: l.usage,
          },
        ],
        failures: { worker: 0, selfcheck: 0, review: 0, gate: 0 },
        cooldowns: {},
        selfcheckRetries: 0,
        updatedAt: at,
      }),
    );
  }
  return ws;
}

/** Starts `switchyard monitor` (CPU measured by the preload) and returns its URL. */
async function startMonitor(ws, cpuFile) {
  const child = spawn(
    process.execPath,
    ['--import', PRELOAD, CLI, 'monitor', '--workspace', ws, '--json'],
    {
      env: { ...process.env, SWITCHYARD_BENCH_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise((res) =>
    createInterface({ input: child.stdout }).once('line', res),
  );
  const exited = new Promise((res) => child.on('close', res));
  return { child, url: JSON.parse(first).monitor_url, exited };
}

async function firstRender(browser, ws, tasks) {
  const monitor = await startMonitor(ws, join(tmp, 'unused.json'));
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  await page.goto(monitor.url);
  await page.waitForFunction(
    () => performance.getEntriesByName('switchyard-first-render').length > 0,
    null,
    { timeout: 60_000 },
  );
  const ms = await page.evaluate(
    () => performance.getEntriesByName('switchyard-first-render')[0].startTime,
  );
  const cards = await page.locator('.task').count();
  // Responsiveness: a click on a task until its detail is rendered.
  const id = await page
    .locator('.task')
    .nth(Math.floor(cards / 2))
    .getAttribute('data-task');
  const click = await page.evaluate(async (task) => {
    const t0 = performance.now();
    document.querySelector(`.task[data-task="${task}"]`).click();
    await new Promise((r) => requestAnimationFrame(() => r()));
    return {
      ms: performance.now() - t0,
      shown: document.querySelector('#detail h2')?.textContent ?? '',
    };
  }, id);
  await page.close();
  monitor.child.kill('SIGINT');
  await monitor.exited;
  if (cards < tasks * 0.9) throw new Error(`only ${cards} cards rendered for ${tasks} tasks`);
  if (!click.shown.startsWith(id)) throw new Error(`the detail of ${id} was not shown`);
  return { ms, cards, clickMs: click.ms };
}

/** CPU (ms) of a process over `seconds` while 32 writers stream and events arrive. */
async function streamingCpu(browser, ws, withMonitor) {
  const cpuFile = join(tmp, `cpu-${withMonitor}.json`);
  let child;
  let exited;
  let page;
  if (withMonitor) {
    const m = await startMonitor(ws, cpuFile);
    child = m.child;
    exited = m.exited;
    page = await browser.newPage();
    await page.goto(m.url);
    await page.waitForFunction(
      () => performance.getEntriesByName('switchyard-first-render').length > 0,
      null,
      { timeout: 60_000 },
    );
  } else {
    child = spawn(
      process.execPath,
      [
        '--import',
        PRELOAD,
        '-e',
        'require("node:http").createServer().listen(0, "127.0.0.1"); process.on("SIGINT", () => process.exit(0));',
      ],
      {
        env: { ...process.env, SWITCHYARD_BENCH_CPU_FILE: cpuFile },
        stdio: 'ignore',
      },
    );
    exited = new Promise((res) => child.on('close', res));
    await new Promise((r) => setTimeout(r, 500));
  }
  const dir = join(ws, 'agent-task', '.switchyard');
  const agents = Array.from({ length: 32 }, (_, i) => {
    const d = join(dir, 'attempts', `stream-${i}`);
    mkdirSync(d, { recursive: true });
    return d;
  });
  // Start-up (plans parsed, first snapshot, the page's first load) is left out.
  await new Promise((r) => setTimeout(r, 1000));
  child.kill('SIGUSR2');
  const line = `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'x'.repeat(120) }] } })}\n`;
  const start = Date.now();
  let n = 0;
  const writer = setInterval(() => {
    for (const d of agents) {
      appendFileSync(join(d, 'stdout.raw'), line);
      appendFileSync(join(d, 'normalized-output.log'), 'assistant: working…\n');
    }
  }, 50);
  const events = setInterval(() => {
    n += 1;
    appendFileSync(
      join(dir, 'events.jsonl'),
      `${JSON.stringify({ at: new Date().toISOString(), runId: 'bench', type: 'attempt.finished', task: 'g000/task-00001', role: 'worker', planLoop: 1, attempt: `s${n}`, target: 't-a', result: 'success', exitCode: 0, signal: null, evidence: [], durationMs: 1, attemptDir: agents[n % 32], usage: { inputTokens: 10, outputTokens: 5 } })}\n`,
    );
  }, 1000);
  await new Promise((r) => setTimeout(r, STREAM_SECONDS * 1000));
  clearInterval(writer);
  clearInterval(events);
  const wallMs = Date.now() - start;
  await page?.close();
  child.kill('SIGINT');
  await exited;
  const cpu = JSON.parse(readFileSync(cpuFile, 'utf8'));
  const from = cpu.mark ?? { userMs: 0, systemMs: 0 };
  return { cpuMs: cpu.userMs + cpu.systemMs - from.userMs - from.systemMs, wallMs, events: n };
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
try {
  const small = await firstRender(browser, workspace('small', 10), 10);
  const big = await firstRender(browser, workspace('big', 1000), 1000);
  console.log(
    `first render, 10 tasks (baseline):  ${small.ms.toFixed(0)} ms (${small.cards} cards), click→detail ${small.clickMs.toFixed(1)} ms`,
  );
  console.log(
    `first render, 1,000 tasks:          ${big.ms.toFixed(0)} ms (${big.cards} cards), click→detail ${big.clickMs.toFixed(1)} ms`,
  );
  console.log(
    `  ratio vs baseline: ${(big.ms / small.ms).toFixed(2)}x; goal <= 1000 ms: ${big.ms <= 1000 ? 'met' : 'NOT met'}`,
  );

  const ws = workspace('stream', 1000);
  const idle = await streamingCpu(browser, ws, false);
  const mon = await streamingCpu(browser, ws, true);
  const pct = (r) => (100 * r.cpuMs) / r.wallMs;
  console.log(
    `server CPU, idle Node process (baseline): ${pct(idle).toFixed(2)} % of a core over ${(idle.wallMs / 1000).toFixed(0)} s`,
  );
  console.log(
    `server CPU, monitor, 1,000 tasks, 32 agents streaming, ${mon.events} events, page open: ${pct(mon).toFixed(2)} % of a core`,
  );
  console.log(
    `  above baseline: ${(pct(mon) - pct(idle)).toFixed(2)} points; goal <= 2 %: ${pct(mon) <= 2 ? 'met' : 'NOT met'}`,
  );
} finally {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
}
