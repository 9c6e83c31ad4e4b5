import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeBinDir, runCli, tempDir } from './catalog-helpers.js';

// Each test spawns real processes (the built CLI, Node); allow for a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const ALL_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'copilot'];
let agents: string;
let bundled: any;

beforeAll(async () => {
  agents = await fakeBinDir(ALL_AGENTS);
  const assets = new URL('../../../assets/default-execution-catalog.json', import.meta.url);
  bundled = JSON.parse(await readFile(assets, 'utf8'));
});

describe('switchyard catalog validate', () => {
  it('exits 0 with source, revision and coverage when every agent is installed', async () => {
    const r = await runCli(['catalog', 'validate'], { env: { PATH: agents } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/execution catalog is valid/);
    expect(r.stdout).toMatch(/source {4}bundled default .*default-execution-catalog\.json/);
    expect(r.stdout).toMatch(/revision {2}[0-9a-f]{64}\n/);
    expect(r.stdout).toMatch(
      /routes {4}worker 20\/20 \(1 windowed\), review 20\/20 \(1 windowed\)/,
    );
  });

  it('exits 2 naming every target whose command is missing, and --skip-command-check skips that', async () => {
    const r = await runCli(['catalog', 'validate'], {
      env: { PATH: await fakeBinDir(['claude']) },
    });
    expect(r.exitCode, r.stderr).toBe(2);
    const missing = r.stderr.match(/SY_CATALOG_NOT_EXECUTABLE/g) ?? [];
    expect(missing).toHaveLength(6);
    expect(r.stderr).toMatch(/targets\.codex-gpt-5\.runtime\.command\.0: target "codex-gpt-5"/);
    expect(r.stderr).toMatch(/--skip-command-check/);
    expect(r.stderr).toMatch(/is invalid: 6 problems/);
    const skipped = await runCli(['catalog', 'validate', '--skip-command-check']);
    expect(skipped.exitCode, skipped.stderr).toBe(0);
    expect(skipped.stdout).toMatch(/not checked \(--skip-command-check\)/);
  });

  it('prints every problem of a broken catalog with paths and hints (human and --json)', async () => {
    const dir = await tempDir();
    const raw = structuredClone(bundled);
    raw.owner = 'me';
    delete raw.routes.review['cloud-G03'];
    raw.routes.worker['cloud-G01'].candidates.push('ghost');
    raw.targets['claude-opus'].runtime.command[2] = '{prompt_file}';
    raw.targets['qwen-local'].runtime.environment.OPENAI_API_KEY = 'sk-live-0123456789abcdefghijkl';
    await writeFile(join(dir, 'bad.json'), JSON.stringify(raw));
    const human = await runCli(['catalog', 'validate', '--execution-catalog', 'bad.json'], {
      cwd: dir,
      env: { PATH: agents },
    });
    expect(human.exitCode, human.stderr).toBe(2);
    for (const path of [
      'owner',
      'routes.review.cloud-G03',
      'routes.worker.cloud-G01.candidates.3',
      'targets.claude-opus.runtime.command.2',
      'targets.qwen-local.runtime.environment.OPENAI_API_KEY',
    ]) {
      expect(human.stderr).toContain(`${join(dir, 'bad.json')} ${path}: `);
    }
    expect(human.stderr.match(/hint: /g)?.length).toBe(5);

    const json = await runCli(
      ['catalog', 'validate', '--execution-catalog', 'bad.json', '--json'],
      {
        cwd: dir,
        env: { PATH: agents },
      },
    );
    expect(json.exitCode, json.stderr).toBe(2);
    const doc = JSON.parse(json.stdout);
    expect(doc.valid).toBe(false);
    expect(doc.problems).toHaveLength(5);
    expect(doc.problems.every((p: { hint?: string; path?: string }) => p.hint && p.path)).toBe(
      true,
    );
  });

  it('resolves --execution-catalog > AGENT_TASK_EXECUTION_CATALOG > project config > bundled', async () => {
    const dir = await tempDir();
    const variant = (model: string) => {
      const raw = structuredClone(bundled);
      raw.targets['claude-opus'].model = model;
      return JSON.stringify(raw);
    };
    await writeFile(join(dir, 'flag.json'), variant('a'));
    await writeFile(join(dir, 'env.json'), variant('b'));
    await writeFile(join(dir, 'team.json'), variant('c'));
    await writeFile(
      join(dir, '.switchyardrc.json'),
      JSON.stringify({ executionCatalog: './team.json' }),
    );
    const validate = async (args: string[], env: Record<string, string> = {}) => {
      const r = await runCli(['catalog', 'validate', '--json', ...args], {
        cwd: dir,
        env: { PATH: agents, ...env },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const env = { AGENT_TASK_EXECUTION_CATALOG: 'env.json' };
    const flag = await validate(['--execution-catalog', 'flag.json'], env);
    expect(flag.source).toEqual({ kind: 'flag', path: join(dir, 'flag.json') });
    const fromEnv = await validate([], env);
    expect(fromEnv.source).toEqual({ kind: 'env', path: join(dir, 'env.json') });
    const config = await validate([]);
    expect(config.source).toEqual({ kind: 'config', path: join(dir, 'team.json') });
    expect(config.commandCheck).toBe('checked');
    expect(config.coverage.stages.worker.routes).toBe(20);
    expect(new Set([flag.revision, fromEnv.revision, config.revision]).size).toBe(3);
    expect(flag.revision).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports unreadable and malformed catalog files with exit 2', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'broken.json'), '{"schema_version": 1,,}');
    const broken = await runCli(['catalog', 'validate', '--execution-catalog', 'broken.json'], {
      cwd: dir,
    });
    expect(broken.exitCode, broken.stderr).toBe(2);
    expect(broken.stderr).toMatch(/SY_CATALOG_PARSE .*broken\.json:1: /);
    const missing = await runCli(['catalog', 'validate', '--execution-catalog', 'nope.json'], {
      cwd: dir,
    });
    expect(missing.exitCode, missing.stderr).toBe(2);
    expect(missing.stderr).toMatch(/SY_CATALOG_NOT_FOUND/);
  });

  it('rejects unknown flags with exit 2', async () => {
    const r = await runCli(['catalog', 'validate', '--no-such-flag']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--no-such-flag'/);
  });
});

describe('switchyard catalog show', () => {
  it('shows the window active at --at, per stage (JSON)', async () => {
    const day = await runCli(['catalog', 'show', '--at', '2027-07-01T14:00:00Z', '--json']);
    expect(day.exitCode, day.stderr).toBe(0);
    const doc = JSON.parse(day.stdout);
    expect(doc.at).toBe('2027-07-01T14:00:00.000Z');
    expect(doc.source.kind).toBe('bundled');
    expect(doc.stages.worker).toHaveLength(20);
    const g05 = doc.stages.worker.find((r: { route: string }) => r.route === 'cloud-G05');
    expect(g05.window).toEqual({
      index: 0,
      of: 2,
      timezone: 'America/New_York',
      start: '09:00',
      end: '18:00',
    });
    expect(g05.candidates[0]).toBe('codex-gpt-5');
    const night = JSON.parse(
      (await runCli(['catalog', 'show', '--at', '2027-07-01T23:00:00Z', '--json'])).stdout,
    );
    const g05night = night.stages.worker.find((r: { route: string }) => r.route === 'cloud-G05');
    expect(g05night.window.index).toBe(1);
    expect(g05night.candidates[0]).toBe('claude-sonnet');
  });

  it('prints readable tables for humans, with no agent CLI installed', async () => {
    const r = await runCli(['catalog', 'show', '--at', '2027-01-15T03:00:00-05:00']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Revision {11}[0-9a-f]{64}/);
    expect(r.stdout).toMatch(/At {17}2027-01-15T08:00:00\.000Z/);
    expect(r.stdout).toMatch(/Targets \(8\)/);
    expect(r.stdout).toMatch(/Stage worker/);
    expect(r.stdout).toMatch(/Stage review/);
    expect(r.stdout).toMatch(/local-G01…G10 +qwen-local → codex-oss/);
    expect(r.stdout).toMatch(
      /cloud-G05 +claude-sonnet → .*18:00–09:00 America\/New_York \(2 of 2\)/,
    );
  });

  it('rejects a malformed --at with exit 2', async () => {
    const r = await runCli(['catalog', 'show', '--at', 'tomorrow']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/SY_USAGE .*not an ISO-8601 time/);
  });
});

describe('switchyard catalog schema', () => {
  it('prints the generated JSON Schema, equal to the bundled asset', async () => {
    const r = await runCli(['catalog', 'schema']);
    expect(r.exitCode, r.stderr).toBe(0);
    const asset = new URL('../../../assets/schema/execution-catalog.schema.json', import.meta.url);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(await readFile(asset, 'utf8')));
    const config = await runCli(['catalog', 'schema', '--project-config']);
    expect(JSON.parse(config.stdout).properties.maxParallel.default).toBe(3);
  });
});

describe('switchyard catalog --help', () => {
  it.each(['validate', 'show', 'schema', 'init'])('teaches %s with examples', async (sub) => {
    const r = await runCli(['catalog', sub, '--help']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n {2}\$ switchyard catalog/);
  });
});
