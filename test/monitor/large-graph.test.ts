import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A large graph in a real browser (headless Chromium from the distribution package):
 * `switchyard monitor` on a workspace of 250 tasks in 10 lanes. Lanes fold to one line of
 * counts (by hand, or all at once), and a gate shows its command, assertion, result and output.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'packages/cli/dist/bin.js');
const ARTIFACTS = join(ROOT, 'test-artifacts/monitor');
const CHROMIUM = process.env.SWITCHYARD_CHROMIUM ?? '/usr/bin/chromium';
const LANES = 10;
const PER_LANE = 25;

/** 250 tasks, chains of five inside each lane; one gate result on lane00/t000. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sy-monitor-large-'));
  for (let l = 0; l < LANES; l += 1) {
    for (let n = 0; n < PER_LANE; n += 1) {
      const id = `lane${String(l).padStart(2, '0')}/t${String(n).padStart(3, '0')}`;
      const deps = n % 5 === 0 ? '' : `depends_on: [t${String(n - 1).padStart(3, '0')}]\n`;
      mkdirSync(join(dir, 'agent-task', id), { recursive: true });
      writeFileSync(
        join(dir, 'agent-task', id, 'PLAN.md'),
        `---\nroute: cloud-G01\n${deps}---\n# ${id}\n\n## Modified Files Summary\n\n- src/${id}.txt\n\n## Implementation Checklist\n\n- [ ] do it\n`,
      );
    }
  }
  mkdirSync(join(dir, 'agent-task', '.switchyard'), { recursive: true });
  // The same gate failure twice in a row: shown once, with its count.
  const gate = {
    type: 'gate.finished',
    runId: 'r1',
    task: 'lane00/t000',
    planLoop: 1,
    command: ['sh', '-c', "npm test -- --grep 'all green'"],
    exitCode: 1,
    passed: false,
    detail: 'stdout does not contain "all green"',
    assertion: 'stdout contains "all green"',
    output: ['FAIL src/a.test.ts', '1 failed'],
  };
  for (const at of [new Date(Date.now() - 1000), new Date()])
    appendFileSync(
      join(dir, 'agent-task', '.switchyard', 'events.jsonl'),
      `${JSON.stringify({ ...gate, at: at.toISOString() })}\n`,
    );
  // lane01 is the task group of a YAML plan run in a session: its title, goal and lanes.
  const id = 's-20261201T100000Z-0a0b';
  const session = join(dir, 'agent-task', '.switchyard', 'sessions', id);
  mkdirSync(session, { recursive: true });
  writeFileSync(
    join(session, 'plan.json'),
    JSON.stringify({
      schema_version: 1,
      id,
      workspace: dir,
      createdAt: new Date().toISOString(),
      options: {},
      tasks: [],
      yamlPlan: {
        file: join(dir, 'lane01.yaml'),
        sha256: '0'.repeat(64),
        source: '',
        parsed: {
          planId: 'lane01',
          title: 'Ship the parser',
          goal: 'parse every input once',
          lanes: [{ id: 'build', label: 'Build it' }, { id: 'test' }],
          tasks: [
            { id: 't000', lane: 'build' },
            { id: 't001', lane: 'test' },
          ],
        },
      },
    }),
  );
  return dir;
}

let browser: Browser;
const children: ChildProcessWithoutNullStreams[] = [];
beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (see .ci/run)`);
  mkdirSync(ARTIFACTS, { recursive: true });
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
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('a large graph in the monitor', () => {
  it('folds lanes to their counts and shows a gate with command, assertion and output', {
    timeout: 120_000,
  }, async () => {
    const dir = workspace();
    const child = spawn(process.execPath, [CLI, 'monitor', '--workspace', dir, '--json']);
    children.push(child);
    const url = await new Promise<string>((res, rej) => {
      createInterface({ input: child.stdout }).once('line', (l) => res(JSON.parse(l).monitor_url));
      child.once('close', (code) => rej(new Error(`monitor exited ${code}`)));
    });
    const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    await page.goto(url);
    await page.waitForFunction(
      (n) => document.querySelectorAll('.task').length === n,
      LANES * PER_LANE,
    );
    const lane = page.locator('.lane[data-group="lane03"]');
    expect(await lane.locator('.lane-counts').innerText()).toBe('25 waiting');

    // One lane folded by hand: its cards and edges go, its counts stay.
    await lane.locator('.lane-toggle').click();
    await page.waitForFunction(() => !document.querySelector('.task[data-task^="lane03/"]'));
    expect(await page.locator('.task').count()).toBe((LANES - 1) * PER_LANE);
    expect(await page.locator('.lane[data-group="lane03"] .lane-counts').innerText()).toBe(
      '25 waiting',
    );
    expect(await page.locator('#edges path.edge[data-to^="lane03/"]').count()).toBe(0);
    expect(await page.locator('#edges path.edge[data-to^="lane04/"]').count()).toBe(20);
    await page.screenshot({ path: join(ARTIFACTS, 'large-graph-one-folded.png') });

    // All folded, then all unfolded.
    await page.click('[data-fold-all="1"]');
    await page.waitForFunction(() => document.querySelectorAll('.task').length === 0);
    expect(await page.locator('.lane.folded').count()).toBe(LANES);
    await page.screenshot({ path: join(ARTIFACTS, 'large-graph-folded.png') });
    await page.click('[data-fold-all="0"]');
    await page.waitForFunction(
      (n) => document.querySelectorAll('.task').length === n,
      LANES * PER_LANE,
    );

    // A YAML plan's group is headed by the plan's title, goal and lanes (with their labels);
    // cards name their lane.
    expect(await page.locator('.lane[data-group="lane01"] h2').textContent()).toMatch(
      /lane01 Ship the parser — parse every input once lanes: Build it \(build\) → test/,
    );
    expect(await page.locator('.task[data-task="lane01/t000"] .yaml-lane').innerText()).toBe(
      'Build it',
    );
    expect(await page.locator('.task[data-task="lane01/t001"] .yaml-lane').innerText()).toBe(
      'test',
    );

    // Search: every word must match; the rest of the cards and their lanes are hidden.
    await page.fill('#filter', 'lane07 t01');
    await page.waitForFunction(
      () => document.querySelectorAll('.task:not([hidden])').length === 10,
    );
    expect(await page.locator('#filter-count').innerText()).toBe('10 of 250 tasks match');
    expect(await page.locator('.lane:not([hidden])').count()).toBe(1);
    await page.fill('#filter', 'ship parser');
    await page.waitForFunction(
      () => document.querySelectorAll('.task:not([hidden])').length === 25,
    );
    await page.fill('#filter', '');
    await page.uncheck('[data-show-state="waiting"]');
    await page.waitForFunction(() => document.querySelectorAll('.task:not([hidden])').length === 0);
    await page.check('[data-show-state="waiting"]');
    await page.waitForFunction(
      (n) => document.querySelectorAll('.task:not([hidden])').length === n,
      LANES * PER_LANE,
    );

    // The gate of lane00/t000: the command quoted as a shell reads it back (copyable), the
    // assertion, result and output; the identical second failure folded into a count.
    await page.click('.task[data-task="lane00/t000"]');
    const gate = page.locator('#detail .gate');
    expect(await gate.count()).toBe(1);
    expect(await gate.locator('.cmd-line').innerText()).toBe(
      `sh -c 'npm test -- --grep '\\''all green'\\'''`,
    );
    expect(await gate.locator('.copy').getAttribute('data-copy')).toBe(
      await gate.locator('.cmd-line').innerText(),
    );
    expect(await gate.locator('.repeat').innerText()).toBe('× 2');
    expect(await gate.locator('.assertion').innerText()).toBe('assert stdout contains "all green"');
    expect(await gate.locator('.result').innerText()).toBe(
      '→ failed (exit 1): stdout does not contain "all green" × 2',
    );
    expect(await gate.locator('.gate-output').innerText()).toBe('FAIL src/a.test.ts\n1 failed');
    await page.screenshot({ path: join(ARTIFACTS, 'gate.png') });

    child.kill('SIGINT');
  });
});
