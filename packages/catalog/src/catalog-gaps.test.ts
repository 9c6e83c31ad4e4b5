import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveCatalogFrom } from './resolve.js';
import { hiddenShell } from './shell-wrappers.js';
import { validCatalog } from './test-catalogs.js';
import { validateCatalog } from './validate.js';

const now = new Date('2026-01-01T00:00:00Z');
const check = (mutate: (runtime: Record<string, unknown>) => void) => {
  const raw = validCatalog();
  mutate(raw.targets['cloud-a'].runtime);
  return validateCatalog(raw, { now, checkExecutables: false }).problems;
};

const SMUGGLED: string[][] = [
  ['/usr/bin/env', 'sh', '-c', 'agent {prompt}'],
  ['env', 'FOO=1', 'bash', '-c', 'x'],
  ['env', '-S', 'sh -c x'],
  ['nice', '-n', '5', 'sh', '-c', 'x'],
  ['timeout', '60', 'sh', '-c', 'x'],
  ['timeout', '-s', 'KILL', '60', 'bash', '-lc', 'x'],
  ['xargs', '-0', 'sh', '-c', 'x'],
  ['nohup', 'setsid', 'dash', '-c', 'x'],
  ['stdbuf', '-o', 'L', 'zsh', '-c', 'x'],
  ['node', '-e', 'require("child_process").execSync("id")'],
  ['/usr/local/bin/node22', '--eval', 'x'],
  ['perl', '-e', 'system @ARGV'],
  ['perl', '-Mstrict', '-we', 'x'],
  ['python3', '-c', 'import os'],
  ['python3.12', '-c', 'import os'],
  ['ruby', '-e', 'x'],
  ['php', '-r', 'x'],
  ['busybox', 'sh', '-c', 'x'],
  ['/bin/busybox', 'ash', '-c', 'x'],
  ['awk', 'BEGIN { system("id") }'],
  ['sudo', '-u', 'me', 'bash', '-c', 'x'],
  ['pwsh', '-Command', 'x'],
];

describe('catalog: shells behind wrappers and interpreters with inline code', () => {
  for (const argv of SMUGGLED)
    it(`refuses ${JSON.stringify(argv)} in command, resume_command and preflight_command`, () => {
      expect(hiddenShell(argv)).toBeDefined();
      for (const field of ['command', 'resume_command', 'preflight_command']) {
        const problems = check((r) => {
          r[field] = [...argv, '{prompt}'];
        });
        expect(problems.map((p) => p.path)).toContain(`targets.cloud-a.runtime.${field}.0`);
        expect(problems.some((p) => /runs a shell or inline code/.test(p.message))).toBe(true);
      }
    });

  it('accepts ordinary agent commands and wrappers around them', () => {
    for (const argv of [
      ['claude', '-p', '{prompt}', '--model', '{model}'],
      ['env', 'NO_COLOR=1', 'codex', 'exec', '{prompt}'],
      ['nice', '-n', '10', 'gemini', '--prompt', '{prompt}'],
      ['timeout', '3600', 'qwen', '-p', '{prompt}'],
      ['node', '/opt/agent/cli.js', '-p', '{prompt}'],
      ['python3', '-m', 'agent', '{prompt}'],
    ])
      expect(hiddenShell(argv), JSON.stringify(argv)).toBeUndefined();
  });
});

describe('catalog: secret shapes it used to miss', () => {
  const cases: [string, (r: Record<string, unknown>) => void][] = [
    [
      'a Stripe live key in argv',
      (r) => {
        r.command = ['agent', '--key', `sk_live_${'a1B2'.repeat(6)}`];
      },
    ],
    [
      'a Hugging Face token in argv',
      (r) => {
        r.command = ['agent', `hf_${'aB3d'.repeat(9)}`];
      },
    ],
    [
      'an AWS secret access key in argv',
      (r) => {
        r.command = ['agent', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'];
      },
    ],
    [
      'PASS=literal in argv',
      (r) => {
        r.command = ['env', 'PASS=hunter2', 'agent'];
      },
    ],
    [
      'TOKEN_=literal in argv',
      (r) => {
        r.command = ['env', 'TOKEN_=hunter2', 'agent'];
      },
    ],
    [
      '--api-key=literal in argv',
      (r) => {
        r.command = ['agent', '--api-key=hunter2'];
      },
    ],
    [
      'PASS in the environment',
      (r) => {
        r.environment = { PASS: 'hunter2' };
      },
    ],
    [
      'TOKEN_ in the environment',
      (r) => {
        r.environment = { TOKEN_: 'hunter2' };
      },
    ],
    [
      'DB_PASSWORD_FILE in the environment',
      (r) => {
        r.environment = { DB_PASS_VALUE: 'hunter2' };
      },
    ],
  ];
  for (const [name, mutate] of cases)
    it(`refuses ${name}`, () => {
      const problems = check(mutate);
      expect(problems.length, JSON.stringify(problems)).toBeGreaterThan(0);
      expect(problems.every((p) => p.code === 'SY_CATALOG_INVALID')).toBe(true);
    });

  it('still accepts references and harmless names', () => {
    expect(
      check((r) => {
        r.environment = { PASS: '${MY_PASS}', MAX_TOKENS: '4096', PASSIVE_MODE: 'on' };
        r.command = ['env', 'TOKEN_TTL=3600', 'agent', '--model', '{model}', '--max-tokens=4096'];
      }),
    ).toEqual([]);
  });
});

describe('catalog files: duplicate keys and invalid UTF-8 are errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-cat-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const resolveFile = (name: string, bytes: string | Buffer) => {
    writeFileSync(join(dir, name), bytes);
    return resolveCatalogFrom(
      { cwd: dir, flagPath: name, checkExecutables: false, now, env: {} },
      undefined,
    );
  };

  it('a duplicate key (the later one would hide the first) is SY_CATALOG_PARSE with its line', async () => {
    const text = JSON.stringify(validCatalog(), null, 2).replace(
      '"agent": "fake-agent",',
      '"agent": "fake-agent",\n      "agent": "other",',
    );
    const error = await resolveFile('dup.json', text).then(
      () => undefined,
      (e: { code: string; line: number; problems: { message: string }[] }) => e,
    );
    expect(error?.code).toBe('SY_CATALOG_PARSE');
    expect(error?.line).toBe(6);
    expect(error?.problems.map((p) => p.message)).toEqual([
      'duplicate key "agent" in targets.local-a (JSON keeps only the last one)',
    ]);
  });

  it('invalid UTF-8 is SY_CATALOG_PARSE, not silently replaced', async () => {
    const text = Buffer.from(
      JSON.stringify(validCatalog(), null, 2).replace('"small"', '"sm\u0000all"'),
    );
    const at = text.indexOf(0);
    text[at] = 0xff;
    await expect(resolveFile('bad.json', text)).rejects.toMatchObject({
      code: 'SY_CATALOG_PARSE',
      message: expect.stringMatching(/not valid UTF-8/),
    });
  });

  it('the valid catalog still resolves', async () => {
    await expect(resolveFile('ok.json', JSON.stringify(validCatalog()))).resolves.toMatchObject({
      catalog: expect.any(Object),
    });
  });
});
