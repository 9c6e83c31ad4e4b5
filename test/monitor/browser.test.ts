import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The monitor in a real browser: headless Chromium from the distribution package (never a
 * downloaded one), driven by playwright-core, on `switchyard demo --monitor` while it runs
 * and on `switchyard monitor` after it finished. Screenshots go to test-artifacts/monitor/.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'packages/cli/dist/bin.js');
const ARTIFACTS = join(ROOT, 'test-artifacts/monitor');
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

/** Spawns the CLI and resolves with the process and the monitor URL of its first JSON line. */
async function startWithMonitor(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args, '--json'], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const first = await new Promise<string>((resolveLine, reject) => {
    lines.once('line', resolveLine);
    child.once('close', () => reject(new Error(`exited before the monitor started: ${stderr}`)));
  });
  const event = JSON.parse(first) as { type: string; monitor_url: string };
  expect(event.type).toBe('monitor.started');
  return { child, url: event.monitor_url, exited };
}

let browser: Browser;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (see .ci/run)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  // A loaded machine starts Chromium slowly: the launch gives up (and ends the browser it
  // started) before the hook does.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
    timeout: 110_000,
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe('the monitor in a real browser', () => {
  it('shows the demo live, then the finished run with failover, review loop and token totals', {
    timeout: 240_000,
  }, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sy-monitor-e2e-')), 'ws');
    const demo = await startWithMonitor(['demo', '--dir', dir, '--monitor']);
    children.push(demo.child);
    const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('http://127.0.0.1:')) external.push(r.url());
    });
    await page.goto(demo.url);
    // The DAG: six task nodes in three lanes.
    await page.waitForFunction(() => document.querySelectorAll('.task').length === 6);
    expect(
      await page.locator('.lane').evaluateAll((l) => l.map((e) => e.getAttribute('data-group'))),
    ).toEqual(['core', 'cli', 'docs']);
    // A state change must arrive live: no reload (the marker survives), a new render.
    const pending = await page
      .locator('.task:not([data-state="done"])')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-task')!));
    expect(pending.length, 'the page opened after the demo ended').toBeGreaterThan(0);
    await page.evaluate(() => {
      (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
    });
    const watched = pending.at(-1)!;
    await page.waitForSelector(
      `.task[data-task="${watched}"][data-state="running"], .task[data-task="${watched}"][data-state="done"]`,
      { timeout: 120_000 },
    );
    await shot(page, 'live-during-run');
    await page.waitForSelector(`.task[data-task="${watched}"][data-state="done"]`, {
      timeout: 120_000,
    });
    expect(
      await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
    ).toBe(true);
    expect(await demo.exited).toBe(0);
    // The run's end reaches the open page: the exit code and totals, and no endless reconnecting
    // (the monitor said it stopped with the run).
    await page.waitForSelector('#run-state [data-run-state="finished"][data-exit-code="0"]');
    expect(await page.locator('#run-state').innerText()).toMatch(
      /Run finished · exit 0 \(every task archived\) · 6 done · 0 blocked · 0 not started · took \d+(ms|s|m \d+s) · ended .* · [\d,]+ tokens · \$\d/,
    );
    await expect.poll(() => page.locator('#live').innerText()).toBe('monitor stopped');
    await shot(page, 'run-finished');

    // The finished run, served by `switchyard monitor` (no dispatcher running).
    const monitor = await startWithMonitor(['monitor', '--workspace', dir]);
    children.push(monitor.child);
    // First paint from the snapshot served with the page: everything is there without the
    // live stream (refused here), in the document as parsed.
    const still = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    await still.route(/\/events\?/, (route) => route.abort());
    await still.goto(monitor.url, { waitUntil: 'domcontentloaded' });
    expect(await still.locator('.task[data-state="done"]').count()).toBe(6);
    expect(await still.locator('#run-state [data-run-state]').getAttribute('data-exit-code')).toBe(
      '0',
    );
    await shot(still, 'first-paint');
    await still.close();
    await page.goto(monitor.url);
    await page.waitForFunction(
      () => document.querySelectorAll('.task[data-state="done"]').length === 6,
    );
    // Dependencies drawn as edges: count/tokenize, main/count, main/format, help/main, readme/help.
    await page.waitForFunction(() => document.querySelectorAll('#edges path.edge').length === 5);
    expect(
      await page
        .locator('#edges path.edge')
        .evaluateAll((p) =>
          p.map((e) => `${e.getAttribute('data-from')}>${e.getAttribute('data-to')}`).sort(),
        ),
    ).toEqual([
      'cli/help>docs/readme',
      'cli/main>cli/help',
      'core/count>cli/main',
      'core/format>cli/main',
      'core/tokenize>core/count',
    ]);
    // The failover edge on core/format's card and in its history, with the deciding line.
    await expect
      .poll(() => page.locator('.task[data-task="core/format"] .fo-edge').innerText())
      .toContain('swift-cloud → steady-cloud');
    await page.click('.task[data-task="core/format"]');
    const failover = page.locator('#detail .failovers li').first();
    expect(await failover.innerText()).toMatch(
      /swift-cloud → steady-cloud · provider-quota · worker/,
    );
    expect(await failover.locator('pre').innerText()).toMatch(/429|quota|Rate limit/i);
    await shot(page, 'failover');
    // The review loop of cli/main.
    await page.click('.task[data-task="cli/main"]');
    expect(await page.locator('#detail .loops').innerText()).toBe(
      'PLAN → CODE_REVIEW-1 (CHANGES_REQUESTED) → PLAN-2 → CODE_REVIEW-2 (APPROVED)',
    );
    expect(await page.locator('#detail .verdicts li').allInnerTexts()).toEqual([
      expect.stringMatching(
        /CODE_REVIEW-1: CHANGES_REQUESTED · \d+ critical · \d+ moderate · \d+ minor/,
      ),
      expect.stringMatching(/CODE_REVIEW-2: APPROVED/),
    ]);
    await shot(page, 'review-loop');
    // Its diff: the commit it landed as, from the repository, lines coloured by kind.
    await page.waitForSelector('#detail pre.diff');
    expect(await page.locator('#detail .diff-head').innerText()).toMatch(
      /^commit [0-9a-f]{12} · 1 file\(s\) · \+\d+ −0$/,
    );
    expect(await page.locator('#detail pre.diff .d-file').first().innerText()).toMatch(/^commit /);
    expect(await page.locator('#detail pre.diff .d-file').nth(1).innerText()).toBe(
      'diff --git a/bin/tally.js b/bin/tally.js',
    );
    expect(await page.locator('#detail pre.diff .d-add').count()).toBeGreaterThan(5);
    // Durations: each attempt's, and the time per stage.
    expect(await page.locator('#detail table.attempts tr.attempt td.took').allInnerTexts()).toEqual(
      Array(4).fill(expect.stringMatching(/^\d+(ms|s)$/)),
    );
    expect(await page.locator('#detail table.stages tr[data-stage]').allInnerTexts()).toEqual([
      expect.stringMatching(/^worker\t2\t\d+(ms|s)$/),
      expect.stringMatching(/^review\t2\t\d+(ms|s)$/),
    ]);
    await shot(page, 'diff');
    // Token totals equal what `switchyard status --json` sums from the same events.
    const status = spawnSync(process.execPath, [CLI, 'status', '--workspace', dir, '--json'], {
      encoding: 'utf8',
    });
    const usage = JSON.parse(status.stdout).usage;
    expect(usage.run.totalTokens).toBeGreaterThan(0);
    expect(await page.locator('#run-tokens').innerText()).toBe(
      usage.run.totalTokens.toLocaleString('en-US'),
    );
    expect(await page.locator('#run-cost').innerText()).toBe(`$${usage.run.costUsd.toFixed(3)}`);
    expect(await page.locator('#detail .task-tokens').innerText()).toBe(
      usage.byTask['cli/main'].totalTokens.toLocaleString('en-US'),
    );
    await shot(page, 'finished-run');
    expect(external).toEqual([]);

    monitor.child.kill('SIGINT');
    expect(await monitor.exited).toBe(0);
  });
});
