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
  appendFileSync(
    join(dir, 'agent-task', '.switchyard', 'events.jsonl'),
    `${JSON.stringify({
      type: 'gate.finished',
      at: new Date().toISOString(),
      runId: 'r1',
      task: 'lane00/t000',
      planLoop: 1,
      command: ['npm', 'test'],
      exitCode: 1,
      passed: false,
      detail: 'stdout does not contain "all green"',
      assertion: 'stdout contains "all green"',
      output: ['FAIL src/a.test.ts', '1 failed'],
    })}\n`,
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
  });
});
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

    // The gate of lane00/t000: command, assertion, result and output.
    await page.click('.task[data-task="lane00/t000"]');
    const gate = page.locator('#detail .gate');
    expect(await gate.locator('.cmd').innerText()).toBe('npm test');
    expect(await gate.locator('.assertion').innerText()).toBe('assert stdout contains "all green"');
    expect(await gate.locator('.result').innerText()).toBe(
      '→ failed (exit 1): stdout does not contain "all green"',
    );
    expect(await gate.locator('.gate-output').innerText()).toBe('FAIL src/a.test.ts\n1 failed');
    await page.screenshot({ path: join(ARTIFACTS, 'gate.png') });

    child.kill('SIGINT');
  });

  it('shows a YAML plan’s tasks in the plan’s own lanes, titled with their labels', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-monitor-yaml-lanes-'));
    const tasks = [
      ['1', '0', ''],
      ['2', '1', 'depends_on: ["1"]\n'],
      ['3', '1', 'depends_on: ["1"]\n'],
    ] as const;
    for (const [id, , deps] of tasks) {
      mkdirSync(join(dir, 'agent-task', 'rel', id), { recursive: true });
      writeFileSync(
        join(dir, 'agent-task', 'rel', id, 'PLAN.md'),
        `---\nroute: cloud-G01\n${deps}---\n# ${id}\n\n## Modified Files Summary\n\n- src/${id}.txt\n\n## Implementation Checklist\n\n- [ ] do it\n`,
      );
    }
    // The session of `switchyard run plan.yaml` keeps the plan as run, with its lanes.
    const session = join(dir, 'agent-task', '.switchyard', 'sessions', 's-20261201T020000Z-1a2b');
    mkdirSync(session, { recursive: true });
    writeFileSync(
      join(session, 'plan.json'),
      JSON.stringify({
        schema_version: 1,
        id: 's-20261201T020000Z-1a2b',
        workspace: dir,
        createdAt: '2026-12-01T02:00:00.000Z',
        options: { taskGroup: 'rel' },
        tasks: tasks.map(([id]) => `rel/${id}`),
        yamlPlan: {
          file: join(dir, 'plan.yaml'),
          sha256: '0',
          source: '…',
          parsed: {
            planId: 'rel',
            lanes: [
              { id: '0', label: 'Setup' },
              { id: '1', label: 'Build' },
            ],
            tasks: tasks.map(([id, lane]) => ({ id, lane })),
          },
        },
      }),
    );
    writeFileSync(
      join(session, 'status.json'),
      JSON.stringify({
        schema_version: 1,
        id: 's-20261201T020000Z-1a2b',
        state: 'finished',
        pid: 1,
        startedAt: '2026-12-01T02:00:00.000Z',
        updatedAt: '2026-12-01T02:00:00.000Z',
        runs: [],
      }),
    );
    const child = spawn(process.execPath, [CLI, 'monitor', '--workspace', dir, '--json']);
    children.push(child);
    const url = await new Promise<string>((res, rej) => {
      createInterface({ input: child.stdout }).once('line', (l) => res(JSON.parse(l).monitor_url));
      child.once('close', (code) => rej(new Error(`monitor exited ${code}`)));
    });
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    await page.goto(url);
    await page.waitForFunction(() => document.querySelectorAll('.task').length === 3);
    const heading = (lane: string) =>
      page.locator(`.lane[data-group="rel"][data-plan-lane="${lane}"] .lane-toggle`).innerText();
    expect(await heading('0')).toContain('rel · Setup (lane 0)');
    expect(await heading('1')).toContain('rel · Build (lane 1)');
    expect(
      await page
        .locator('.lane[data-plan-lane="1"] .task')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-task'))),
    ).toEqual(['rel/2', 'rel/3']);
    await page.screenshot({ path: join(ARTIFACTS, 'yaml-lanes.png') });
    child.kill('SIGINT');
  });
});
