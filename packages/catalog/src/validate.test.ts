import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROUTE_IDS } from '@switchyard/core';
import { assetPath } from '@switchyard/utils';
import { describe, expect, it } from 'vitest';
import { validCatalog } from './test-catalogs.js';
import { validateCatalog } from './validate.js';

const now = new Date('2026-12-01T00:00:00Z');
const check = (raw: unknown, checkExecutables = false) =>
  validateCatalog(raw, { now, checkExecutables });
const paths = (raw: unknown) => check(raw).problems.map((p) => p.path);

describe('validateCatalog: valid catalogs', () => {
  it('accepts the bundled default catalog with all 40 routes', () => {
    const raw = JSON.parse(readFileSync(assetPath('default-execution-catalog.json'), 'utf8'));
    const { catalog, problems } = check(raw);
    expect(problems).toEqual([]);
    expect(Object.keys(catalog!.routes.worker)).toEqual([...ROUTE_IDS]);
    expect(Object.keys(catalog!.routes.review)).toHaveLength(20);
    const classes = new Set(Object.values(catalog!.targets).map((t) => t.execution_class));
    expect(classes).toEqual(new Set(['local_model', 'cloud_model']));
    for (const id of ROUTE_IDS.filter((r) => r.startsWith('local'))) {
      for (const c of catalog!.routes.worker[id].candidates ?? []) {
        expect(catalog!.targets[c]!.execution_class).toBe('local_model');
      }
    }
  });

  it('accepts a minimal catalog, applies defaults and checks executables', () => {
    const { catalog, problems } = check(validCatalog(), true);
    expect(problems).toEqual([]);
    expect(catalog!.targets['local-a']!.selfcheck_required).toBe(false);
    expect(catalog!.targets['local-a']!.runtime.output_format).toBe('jsonl');
  });

  it('allows a $schema key at the root', () => {
    expect(check({ $schema: './x.json', ...validCatalog() }).problems).toEqual([]);
  });
});

describe('validateCatalog: structure', () => {
  it('rejects unknown keys at every level, each with its path', () => {
    const raw = validCatalog();
    raw.extra = 1;
    raw.targets['local-a'].colour = 'red';
    raw.targets['local-a'].runtime.shell = true;
    raw.routes.worker['cloud-G01'].fallback = [];
    raw.routes.extra_stage = {};
    expect(paths(raw)).toEqual(
      expect.arrayContaining([
        'extra',
        'targets.local-a.colour',
        'targets.local-a.runtime.shell',
        'routes.worker.cloud-G01.fallback',
        'routes.extra_stage',
      ]),
    );
  });

  it('requires schema_version 1, targets and routes', () => {
    const problems = check({}).problems;
    expect(problems.map((p) => p.path)).toEqual(['schema_version', 'targets', 'routes']);
    expect(problems[0]!.message).toMatch(/missing required key/);
    expect(problems[0]!.hint).toBeTruthy();
    expect(paths({ ...validCatalog(), schema_version: 2 })).toEqual(['schema_version']);
  });

  it('reports a missing and an extra route id of a stage', () => {
    const raw = validCatalog();
    delete raw.routes.review['local-G07'];
    raw.routes.review['local-G11'] = { candidates: ['local-a'] };
    const { problems } = check(raw);
    expect(problems.map((p) => p.path)).toEqual(
      expect.arrayContaining(['routes.review.local-G07', 'routes.review.local-G11']),
    );
    expect(problems.find((p) => p.path === 'routes.review.local-G11')!.hint).toMatch(
      /local-G01\.\.local-G10/,
    );
  });

  it('rejects malformed target ids and non-object sections', () => {
    const raw = validCatalog();
    raw.targets['bad id!'] = raw.targets['cloud-a'];
    const { problems } = check(raw);
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['targets.bad id!', 'invalid key "bad id!": use letters, digits, ".", "_" and "-"'],
    ]);
    expect(
      check({ schema_version: 1, targets: [], routes: 'x' }).problems.map((p) => p.message),
    ).toEqual([
      'Invalid input: expected an object, received array',
      'Invalid input: expected object, received string',
    ]);
  });

  it('requires a stage to exist', () => {
    const raw = validCatalog();
    delete raw.routes.review;
    expect(paths(raw)).toEqual(['routes.review']);
  });

  it('a full catalog missing routes or a stage points at the compact form', () => {
    const raw = validCatalog();
    delete raw.routes.review;
    delete raw.routes.worker['local-G07'];
    const { problems } = check(raw);
    expect(problems.map((p) => p.path).sort()).toEqual([
      'routes.review',
      'routes.worker.local-G07',
    ]);
    for (const p of problems) {
      expect(p.hint).toMatch(/local-G01\.\.local-G10/);
      expect(p.hint).toContain('"defaults": { "candidates": [...] }');
    }
  });

  it('a catalog with no routes at all points at the compact form too (inline in a config as well)', () => {
    const raw = validCatalog();
    delete raw.routes;
    for (const [opts, path] of [
      [{}, 'routes'],
      [{ pathPrefix: 'executionCatalog' }, 'executionCatalog.routes'],
    ] as const) {
      const { problems } = validateCatalog(raw, { now, checkExecutables: false, ...opts });
      expect(problems.map((p) => p.path)).toEqual([path]);
      const hint = problems[0]!.hint ?? '';
      expect(hint).toMatch(/worker and review/);
      expect(hint).toMatch(/local-G01\.\.local-G10/);
      expect(hint).toContain('"defaults": { "candidates": [...] }');
      // With a default for every route, the compact form needs no routes key at all.
      expect(hint).toMatch(/leave routes out/);
    }
    // ...and it is true: defaults alone make a valid catalog.
    const { routes: _none, ...noRoutes } = validCatalog();
    const compact = check({ ...noRoutes, defaults: { candidates: ['local-a'] } });
    expect(compact.problems).toEqual([]);
  });

  it('checks target fields: agent, model, execution_class, command, output_format, selfcheck', () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].execution_class = 'gpu';
    raw.targets['cloud-a'].runtime.output_format = 'xml';
    raw.targets['cloud-a'].runtime.command = [];
    raw.targets['cloud-a'].selfcheck_required = 'yes';
    delete raw.targets['cloud-b'].model;
    expect(paths(raw)).toEqual(
      expect.arrayContaining([
        'targets.cloud-a.execution_class',
        'targets.cloud-a.runtime.output_format',
        'targets.cloud-a.runtime.command',
        'targets.cloud-a.selfcheck_required',
        'targets.cloud-b.model',
      ]),
    );
  });

  it('accepts every optional runtime field', () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].selfcheck_required = true;
    Object.assign(raw.targets['cloud-a'].runtime, {
      resume_command: ['x', '--resume', '{resume_session}', '{prompt}'],
      preflight_command: ['x', '--version'],
      environment: {
        LOG_LEVEL: 'debug',
        API_KEY: '${MY_KEY}',
        BASE: '${BASE_URL:-http://127.0.0.1:8080/v1}',
      },
      session_path: '~/.agent/{workspace}',
      native_session_monitor: 'fake-agent',
      auxiliary_logs: ['{attempt_dir}/agent.log'],
    });
    raw.routes.worker['cloud-G02'] = {
      candidates: ['cloud-b'],
      rule_id: 'r1',
      policy_priority: 3,
      reason_codes: ['cheap'],
    };
    expect(check(raw).problems).toEqual([]);
  });
});

describe('validateCatalog: routes and candidates', () => {
  it('requires exactly one of candidates or windows', () => {
    const raw = validCatalog();
    raw.routes.worker['cloud-G03'] = { rule_id: 'x' };
    raw.routes.worker['cloud-G04'] = {
      candidates: ['cloud-a'],
      windows: [{ timezone: 'UTC', start: '00:00', end: '00:00', candidates: ['cloud-a'] }],
    };
    const { problems } = check(raw);
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ['routes.worker.cloud-G03', 'has neither "candidates" nor "windows"'],
      ['routes.worker.cloud-G04', 'has both "candidates" and "windows"'],
    ]);
  });

  it('rejects empty and duplicate candidates, and candidates that are not targets', () => {
    const raw = validCatalog();
    raw.routes.worker['cloud-G01'].candidates = [];
    raw.routes.worker['cloud-G02'].candidates = ['cloud-a', 'cloud-b', 'cloud-a'];
    raw.routes.review['cloud-G09'].candidates = ['cloud-a', 'ghost'];
    raw.routes.review['cloud-G10'] = {
      windows: [{ timezone: 'UTC', start: '00:00', end: '00:00', candidates: ['phantom'] }],
    };
    const { problems } = check(raw);
    expect(problems.map((p) => p.path)).toEqual([
      'routes.worker.cloud-G01.candidates',
      'routes.worker.cloud-G02.candidates.2',
      'routes.review.cloud-G09.candidates.1',
      'routes.review.cloud-G10.windows.0.candidates.0',
    ]);
    expect(problems[2]!.message).toBe('candidate "ghost" is not a target');
    expect(problems[2]!.hint).toMatch(/define targets\.ghost/);
  });
});

describe('validateCatalog: templates and shell lines', () => {
  it('names the path of every unknown placeholder', () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].runtime.command = ['agent', '--cwd', '{cwd}', '{prompt}'];
    raw.targets['cloud-a'].runtime.resume_command = ['agent', '--resume', '{ session_id }'];
    raw.targets['cloud-a'].runtime.session_path = '{home}/.agent';
    raw.targets['cloud-a'].runtime.environment = { MODEL: '{model_name}' };
    raw.targets['cloud-a'].runtime.auxiliary_logs = ['{attempt_dir}/a.log', '{tmp}/b.log'];
    const { problems } = check(raw);
    expect(problems.map((p) => p.path)).toEqual([
      'targets.cloud-a.runtime.command.2',
      'targets.cloud-a.runtime.resume_command.2',
      'targets.cloud-a.runtime.session_path',
      'targets.cloud-a.runtime.auxiliary_logs.1',
    ]);
    expect(problems[0]!.message).toBe('unknown placeholder {cwd}');
    expect(problems[0]!.hint).toMatch(/\{agent\} \{model\} \{target_id\}/);
    expect(problems[1]!.hint).toBe('write it as {session_id}');
  });

  it('refuses command lines meant for a shell', () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].runtime.command = ['claude -p {prompt} --model {model}'];
    raw.targets['cloud-b'].runtime.command = ['sh', '-c', 'claude -p "$1"'];
    raw.targets['local-a'].runtime.preflight_command = ['agent', 'curl localhost | grep ok'];
    const { problems } = check(raw);
    expect(problems.map((p) => p.path)).toEqual([
      'targets.local-a.runtime.preflight_command.1',
      'targets.cloud-a.runtime.command.0',
      'targets.cloud-b.runtime.command.0',
    ]);
    expect(problems.every((p) => /argv|shell/.test(`${p.message} ${p.hint}`))).toBe(true);
  });

  it('accepts arguments with spaces that are not shell lines', () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].runtime.command = [
      process.execPath,
      '--title',
      'nightly run',
      '{prompt}',
    ];
    expect(check(raw).problems).toEqual([]);
  });
});

describe('validateCatalog: secrets', () => {
  const withEnv = (environment: Record<string, string>) => {
    const raw = validCatalog();
    raw.targets['cloud-a'].runtime.environment = environment;
    return check(raw).problems;
  };
  it.each([
    ['OPENAI_BASE', 'sk-proj-abcdefghijklmnopqrstuvwx1234'],
    ['GH', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['AWS_ID', 'AKIAIOSFODNN7EXAMPLE'],
    ['SLACK', 'xoxb-1234567890-abcdefghij'],
    [
      'SESSION',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ],
    ['OPAQUE', 'q8Zr3Lm0Xv7Tb2Kp9Wn4Yc6Hd1Js5Fg'],
    ['ANTHROPIC_API_KEY', 'my-key'],
    ['GITHUB_TOKEN', 'abc'],
    ['DB_PASSWORD', 'hunter2'],
    ['CLIENT_SECRET', 'shh'],
    ['PROXY', 'https://user:pa55word@proxy.local:8080'],
    ['API_KEY', '${API_KEY:-sk-proj-abcdefghijklmnopqrstuvwx1234}'],
  ])('refuses %s=%s', (name, value) => {
    const problems = withEnv({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe(`targets.cloud-a.runtime.environment.${name}`);
    expect(problems[0]!.hint).toMatch(/reference the environment/);
  });

  it.each([
    ['ANTHROPIC_API_KEY', '${ANTHROPIC_API_KEY}'],
    ['OPENAI_API_KEY', '${LOCAL_KEY:-ollama}'],
    ['MAX_TOKENS', '4096'],
    ['CLAUDE_CODE_MAX_RETRIES', '2'],
    ['OPENAI_BASE_URL', 'http://127.0.0.1:11434/v1'],
    ['EMPTY_TOKEN', ''],
  ])('accepts %s=%s', (name, value) => {
    expect(withEnv({ [name]: value })).toEqual([]);
  });

  it('refuses credential shapes in command arguments too', () => {
    const raw = validCatalog();
    raw.targets['cloud-a'].runtime.command = [
      process.execPath,
      '--api-key',
      'sk-ant-abcdefghijklmnopqrstuvwxyz',
    ];
    expect(check(raw).problems.map((p) => p.path)).toEqual(['targets.cloud-a.runtime.command.2']);
  });
});

describe('validateCatalog: executability', () => {
  it('names every target whose command is not executable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sy-exe-'));
    const script = join(dir, 'agent.sh');
    await writeFile(script, '#!/bin/sh\nexit 0\n');
    await chmod(script, 0o755);
    const plain = join(dir, 'plain.txt');
    await writeFile(plain, 'not executable');
    const raw = validCatalog();
    raw.targets['cloud-a'].runtime.command = ['switchyard-no-such-agent-cli', '{prompt}'];
    raw.targets['cloud-b'].runtime.command = [plain];
    raw.targets['local-a'].runtime.command = ['./agent.sh'];
    const { problems, catalog } = validateCatalog(raw, { now, cwd: dir });
    expect(catalog).toBeUndefined();
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['SY_CATALOG_NOT_EXECUTABLE', 'targets.cloud-a.runtime.command.0'],
      ['SY_CATALOG_NOT_EXECUTABLE', 'targets.cloud-b.runtime.command.0'],
    ]);
    expect(problems[0]!.message).toMatch(/target "cloud-a"/);
    expect(problems[0]!.hint).toMatch(/--skip-command-check/);
  });

  it('finds commands on the given PATH', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sy-path-'));
    await writeFile(join(dir, 'my-agent'), '#!/bin/sh\n');
    await chmod(join(dir, 'my-agent'), 0o755);
    const raw = validCatalog();
    for (const t of Object.values(raw.targets) as any[]) t.runtime.command = ['my-agent'];
    expect(validateCatalog(raw, { now, env: { PATH: dir } }).problems).toEqual([]);
    expect(validateCatalog(raw, { now, env: { PATH: '/nonexistent' } }).problems).toHaveLength(3);
  });
});

describe('validateCatalog: all problems at once', () => {
  it('reports problems from every rule in one pass, with file, path and hint', () => {
    const raw = validCatalog();
    raw.surprise = true;
    raw.targets['cloud-a'].runtime.command = ['agent', '{bogus}'];
    raw.targets['cloud-b'].runtime.environment = { HF_TOKEN: 'literal' };
    raw.routes.worker['cloud-G05'].candidates = ['nobody'];
    raw.routes.review['local-G01'] = {
      windows: [
        { timezone: 'Mars/Olympus', start: '25:00', end: '08:00', candidates: ['local-a'] },
      ],
    };
    raw.routes.review['local-G02'] = {
      windows: [{ timezone: 'UTC', start: '08:00', end: '20:00', candidates: ['local-a'] }],
    };
    const { problems } = validateCatalog(raw, {
      now,
      file: 'catalog.json',
      checkExecutables: false,
    });
    expect(problems.map((p) => p.path)).toEqual(
      expect.arrayContaining([
        'surprise',
        'targets.cloud-a.runtime.command.1',
        'targets.cloud-b.runtime.environment.HF_TOKEN',
        'routes.review.local-G01.windows.0.timezone',
        'routes.review.local-G01.windows.0.start',
        'routes.worker.cloud-G05.candidates.0',
        'routes.review.local-G02.windows',
      ]),
    );
    for (const p of problems) {
      expect(p.file).toBe('catalog.json');
      expect(p.hint).toBeTruthy();
    }
  });

  it('prefixes paths for a catalog inline in a config', () => {
    const raw = validCatalog();
    raw.routes.worker['cloud-G05'].candidates = ['nobody'];
    const { problems } = validateCatalog(raw, {
      now,
      checkExecutables: false,
      pathPrefix: 'executionCatalog',
    });
    expect(problems.map((p) => p.path)).toEqual([
      'executionCatalog.routes.worker.cloud-G05.candidates.0',
    ]);
  });
});
