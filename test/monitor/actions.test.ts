import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVE, CLI, Workspace } from '../dispatcher/helpers.js';

/**
 * Acting from the monitor page in a real browser (the system's headless Chromium) on a live
 * `switchyard run --monitor`: an action without the page's token and one from a page of
 * another origin are refused and change nothing; retry and resolve-with-an-answer of a blocked
 * task, stop of a running task and stop of the run go through the run's own paths and are
 * recorded in the event log and the work log; the page then shows the run finished (130).
 */
const CHROMIUM = process.env.SWITCHYARD_CHROMIUM ?? '/usr/bin/chromium';
let browser: Browser;
let foreign: Server | undefined;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (see .ci/run)`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    // A loaded machine starts Chromium slowly: the launch gives up (and ends the browser it
    // started) before the hook does.
    timeout: 110_000,
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  foreign?.close();
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('actions from the monitor page', () => {
  it('refuses a request without the token or from another origin; retry, resolve, stop task and stop run act and are recorded', {
    timeout: 180_000,
  }, async () => {
    const ws = new Workspace();
    // g/auth: rejected credentials block at once (and escalate); g/slow, g/hang: agents that run on.
    ws.catalog({
      a: {
        scenario: {
          cases: [
            APPROVE,
            { when: { task: 'g/auth' }, steps: [{ fault: 'auth' }] },
            { when: { task: 'g/slow' }, steps: [{ hang: true }] },
            { when: { task: 'g/hang' }, steps: [{ hang: true }] },
          ],
          steps: [{ fillChecklist: true }],
        },
      },
    });
    ws.task('g/auth', { files: ['src/auth.js'] });
    ws.task('g/slow', { files: ['src/slow.js'] });
    ws.task('g/hang', { files: ['src/hang.js'] });
    const run = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--workspace',
        ws.dir,
        '--execution-catalog',
        ws.catalogFile,
        '--monitor',
        '--json',
      ],
      { env: { ...process.env, NO_COLOR: '1' } },
    );
    children.push(run);
    const exited = new Promise<number | null>((r) => run.on('close', (code) => r(code)));
    let stderr = '';
    run.stderr.on('data', (c) => (stderr += c));
    const url = await new Promise<string>((res, rej) => {
      createInterface({ input: run.stdout }).once('line', (l) => res(JSON.parse(l).monitor_url));
      run.once('close', () => rej(new Error(`run exited: ${stderr}`)));
    });
    const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    await page.goto(url);
    await page.waitForSelector('.task[data-task="g/auth"][data-state="blocked"]');
    await page.waitForSelector('tr.escalation [data-resolve="g/auth"]');
    await page.waitForSelector('.task[data-task="g/slow"][data-state="running"]');
    await page.waitForSelector('#run-state [data-run-state="running"] [data-action="stop-run"]');
    const human = () => ws.events().filter((e) => e.type === 'human.action');
    process.env.I28M_WS = ws.dir;

    // Without the token (the page's own origin): 403, nothing done.
    const bare = await page.evaluate(async () => {
      const res = await fetch('/action', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'stop-run' }),
      });
      return { status: res.status, text: await res.text() };
    });
    expect(bare).toEqual({
      status: 403,
      text: 'missing or wrong token (header x-switchyard-token)\n',
    });
    // A page of another origin that even knows the token: the browser's own requests are
    // refused (the preflight of the token header, and a simple form post without it).
    const token = new URL(url).searchParams.get('token')!;
    foreign = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((r) => foreign!.listen(0, '127.0.0.1', () => r()));
    const other = await browser.newPage();
    await other.goto(`http://localhost:${(foreign.address() as AddressInfo).port}/`);
    const attempts = await other.evaluate(
      async ({ target, token }) => {
        const body = JSON.stringify({ action: 'stop-run' });
        const out: string[] = [];
        try {
          const res = await fetch(target, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-switchyard-token': token },
            body,
          });
          out.push(`status ${res.status}`);
        } catch (error) {
          out.push(`blocked: ${(error as Error).name}`);
        }
        try {
          const simple = await fetch(target, { method: 'POST', mode: 'no-cors', body });
          out.push(`no-cors ${simple.type}`);
        } catch (error) {
          // the answer (403) carries Cross-Origin-Resource-Policy: same-origin
          out.push(`no-cors blocked: ${(error as Error).name}`);
        }
        return out;
      },
      { target: new URL('/action', url).href, token },
    );
    expect(attempts).toEqual(['blocked: TypeError', 'no-cors blocked: TypeError']);
    await other.close();
    expect(human()).toEqual([]);

    // Retry the blocked task from its detail: it runs again in this run (and blocks again).
    await page.click('.task[data-task="g/auth"]');
    await page.click('#detail [data-action="retry"][data-task="g/auth"]');
    await expect
      .poll(() => page.locator('#action-result').innerText())
      .toBe('retry g/auth: retried with a fresh failure budget in this run');
    await expect
      .poll(
        () => ws.events().filter((e) => e.type === 'task.blocked' && e.task === 'g/auth').length,
        { timeout: 90_000 },
      )
      .toBe(2);
    // Resolve its (new) escalation with an answer: skip, with words kept.
    await page.waitForSelector('tr.escalation [data-resolve="g/auth"]');
    await page.fill('[data-note-for="g/auth"]', 'the token is revoked; done by hand');
    await page.click('[data-action="resolve"][data-answer="skip"][data-task="g/auth"]');
    await expect
      .poll(() => page.locator('#action-result').innerText())
      .toBe('resolve g/auth: skipped: it stays blocked and its dependents keep waiting');
    await page.waitForFunction(
      () => !document.querySelector('tr.escalation [data-resolve="g/auth"]'),
    );

    // Stop a running task (two clicks): its agent is stopped and it blocks, escalated.
    await page.click('.task[data-task="g/slow"]');
    await page.click('#detail [data-action="stop-task"]');
    await page.click('#detail [data-action="stop-task"][data-armed="1"]');
    await page.waitForSelector('.task[data-task="g/slow"][data-state="blocked"]');
    expect(await page.locator('#detail .why').first().innerText()).toMatch(
      /^stopped by .+ from the monitor$/,
    );
    expect(await page.locator('#detail .human-actions li').innerText()).toMatch(
      /stop-task by .+ via monitor/,
    );
    await page.screenshot({ path: 'test-artifacts/monitor/action-stop-task.png', fullPage: true });

    // Stop the run (two clicks): as a first Ctrl-C; the page shows it finished, exit 130.
    await page.click('#run-state [data-action="stop-run"]');
    await page.click('#run-state [data-action="stop-run"][data-armed="1"]');
    expect(await exited).toBe(130);
    await page.waitForSelector('#run-state [data-run-state="finished"][data-exit-code="130"]');
    expect(await page.locator('#live').innerText()).toBe('monitor stopped');

    // Everything done is on record: events and the group's work log.
    expect(human().map((e) => [e.action, e.task ?? '', e.answer ?? '', e.via])).toEqual([
      ['retry', 'g/auth', '', 'monitor'],
      ['resolve', 'g/auth', 'skip', 'monitor'],
      ['stop-task', 'g/slow', '', 'monitor'],
      ['stop-run', '', '', 'monitor'],
    ]);
    const log = readFileSync(ws.path('agent-task', 'g', 'WORK_LOG.md'), 'utf8');
    expect(log.match(/\| HUMAN \|.*$/gm)?.map((l) => l.split('|')[7]!.trim())).toEqual([
      'retry',
      'resolve: skip (the token is revoked; done by hand)',
      'stop-task',
      'stop-run',
    ]);
    const bundle = JSON.parse(
      readFileSync(
        ws.path('agent-task', '.switchyard', 'escalations', 'g', 'auth.failure-bundle.json'),
        'utf8',
      ),
    );
    expect(bundle.resolution).toMatchObject({
      action: 'skip',
      note: 'the token is revoked; done by hand',
    });
  });
});
