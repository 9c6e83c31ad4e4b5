// Monitor trial (issue 14, "Checked by: a 200-task run in a real browser"): a real
// `switchyard run --monitor` of 200 tasks in 10 lanes (dependency chains inside each lane)
// with the scripted fake agent as every worker and reviewer, watched in headless Chromium.
// Reports the page's first render and the update latency: for every task, the time from its
// `task.archived` event (its `at` in events.jsonl) to the moment its card turned done on the
// page (a MutationObserver in the page stamps it; same machine, same clock). Goal: within
// 1 s of the event. Baseline: the same latency measured on the monitor's own snapshot stream
// (`/events` read by a plain HTTP client in this process), so the page's share shows apart.
// Run from the repo root after `pnpm build`:  node_modules/.bin/node test/bench/monitor-trial.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const ROOT = resolve('.');
const CLI = join(ROOT, 'packages/cli/dist/bin.js');
const FAKE_AGENT = join(ROOT, 'packages/testkit/dist/fake-agent-bin.js');
const CHROMIUM = process.env.SWITCHYARD_CHROMIUM ?? '/usr/bin/chromium';
const TASKS = Number(process.env.MONITOR_TRIAL_TASKS ?? 200);
const LANES = 10;
const ROUTES = ['local', 'cloud'].flatMap((k) =>
  Array.from({ length: 10 }, (_, i) => `${k}-G${String(i + 1).padStart(2, '0')}`),
);

/** 200 tasks in 10 lanes; every third task of a lane waits on the one before it. */
function workspace() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sy-bench-trial-')));
  mkdirSync(join(dir, 'src'), { recursive: true });
  const ids = [];
  for (let i = 0; i < TASKS; i += 1) {
    const lane = `lane${String(i % LANES).padStart(2, '0')}`;
    const n = Math.floor(i / LANES);
    const name = `t${String(n).padStart(3, '0')}`;
    ids.push(`${lane}/${name}`);
    const deps = n > 0 && n % 3 !== 0 ? `depends_on: [t${String(n - 1).padStart(3, '0')}]\n` : '';
    mkdirSync(join(dir, 'agent-task', lane, name), { recursive: true });
    writeFileSync(
      join(dir, 'agent-task', lane, name, 'PLAN.md'),
      `---\nroute: cloud-G01\n${deps}---\n# ${lane}/${name}\n\n## Modified Files Summary\n\n- src/${lane}-${name}.txt\n\n## Implementation Checklist\n\n- [ ] create src/${lane}-${name}.txt\n`,
    );
  }
  const scenario = join(dir, '.scenario.json');
  writeFileSync(
    scenario,
    JSON.stringify({
      format: 'claude-code',
      cases: [
        {
          when: { role: 'review' },
          steps: [{ review: 'Verdict: APPROVED\n\n- [MINOR] naming\n' }],
        },
      ],
      steps: [{ fillChecklist: true }],
    }),
  );
  const routes = Object.fromEntries(ROUTES.map((r) => [r, { candidates: ['fake'] }]));
  const catalog = join(dir, '.catalog.json');
  writeFileSync(
    catalog,
    JSON.stringify({
      schema_version: 1,
      targets: {
        fake: {
          agent: 'claude-code',
          model: 'fake-model',
          execution_class: 'cloud_model',
          runtime: {
            command: [
              process.execPath,
              FAKE_AGENT,
              '--scenario',
              scenario,
              '--model',
              '{model}',
              '{prompt}',
            ],
            output_format: 'jsonl',
          },
        },
      },
      routes: { worker: routes, review: routes },
    }),
  );
  writeFileSync(
    join(dir, 'switchyard.config.json'),
    JSON.stringify({ retry: { baseDelayMs: 5, maxDelayMs: 20 } }),
  );
  return { dir, catalog, ids };
}

/** Times (ms since epoch) at which each task first showed as done on the raw stream. */
function followStream(url, doneAt) {
  const u = new URL(url);
  const held = new Map();
  const note = (t) => {
    if (t.state === 'done' && !doneAt.has(t.id)) doneAt.set(t.id, Date.now());
    held.set(t.id, t);
  };
  const req = request(
    { host: u.hostname, port: u.port, path: `/events?token=${u.searchParams.get('token')}` },
    (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buf += chunk;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const block = buf.slice(0, end).split('\n');
          buf = buf.slice(end + 2);
          const event = block.find((l) => l.startsWith('event: '))?.slice(7);
          const data = block.find((l) => l.startsWith('data: '))?.slice(6);
          if (!data || (event !== 'snapshot' && event !== 'patch')) continue;
          for (const t of JSON.parse(data).tasks) note(t);
        }
      });
    },
  );
  req.on('error', () => undefined);
  req.end();
  return req;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return { n: s.length, median: at(0.5), p95: at(0.95), max: s.at(-1) ?? Number.NaN };
};
const fmt = (s) => `median ${s.median} ms, p95 ${s.p95} ms, max ${s.max} ms (${s.n} tasks)`;

const ws = workspace();
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      CLI,
      'run',
      '--workspace',
      ws.dir,
      '--execution-catalog',
      ws.catalog,
      '--monitor',
      '--json',
      '--max-parallel',
      '8',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((r) => child.on('close', r));
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((res) => lines.once('line', (l) => res(JSON.parse(l).monitor_url)));
  lines.on('line', (l) => process.env.TRIAL_DEBUG && console.error(l.slice(0, 200)));
  const streamDone = new Map();
  const stream = followStream(url, streamDone);
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(url);
  await page.waitForFunction(
    () => performance.getEntriesByName('switchyard-first-render').length > 0,
    null,
    { timeout: 120_000 },
  );
  const firstRender = await page.evaluate(
    () => performance.getEntriesByName('switchyard-first-render')[0].startTime,
  );
  const cards = await page.locator('.task').count();
  // Stamp each card's first `done` (wall clock, comparable with the events' `at`).
  await page.evaluate(() => {
    const seen = {};
    window.__doneAt = seen;
    const scan = () => {
      for (const el of document.querySelectorAll('.task[data-state="done"]'))
        seen[el.dataset.task] ??= Date.now();
    };
    scan();
    new MutationObserver(scan).observe(document.getElementById('lanes'), {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-state'],
    });
  });
  const code = await exited;
  const wallS = (Date.now() - started) / 1000;
  const pageDone = await page.evaluate(() => window.__doneAt);
  stream.destroy();
  const archivedAt = new Map();
  for (const line of readFileSync(
    join(ws.dir, 'agent-task/.switchyard/events.jsonl'),
    'utf8',
  ).split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.type === 'task.archived') archivedAt.set(e.task, Date.parse(e.at));
  }
  const lag = (seen) =>
    [...archivedAt].flatMap(([task, at]) =>
      seen.has(task) ? [Math.max(0, seen.get(task) - at)] : [],
    );
  const pageLag = stats(lag(new Map(Object.entries(pageDone))));
  const streamLag = stats(lag(streamDone));
  const missed = [...archivedAt.keys()].filter((t) => !(t in pageDone));
  console.log(
    `run: ${TASKS} tasks in ${LANES} lanes, exit ${code}, ${archivedAt.size} archived, ${wallS.toFixed(0)} s`,
  );
  console.log(`first render of the page: ${firstRender.toFixed(0)} ms (${cards} cards)`);
  console.log(`update latency, event → server stream (baseline): ${fmt(streamLag)}`);
  console.log(`update latency, event → card done on the page:    ${fmt(pageLag)}`);
  console.log(
    `  page share of the median: ${(pageLag.median - streamLag.median).toFixed(0)} ms; goal <= 1000 ms at p95: ${pageLag.p95 <= 1000 ? 'met' : 'NOT met'}; tasks never shown done: ${missed.length}`,
  );
} finally {
  await browser.close();
  rmSync(ws.dir, { recursive: true, force: true });
}
