import { describe, expect, it } from 'vitest';
import { validCatalog } from './test-catalogs.js';
import { validateCatalog } from './validate.js';

const problemsWith = (runtime: Record<string, unknown>) => {
  const raw = validCatalog();
  Object.assign(raw.targets['cloud-a'].runtime, runtime);
  return validateCatalog(raw, { checkExecutables: false }).problems;
};

// Low-entropy fillers: the shape alone must give them away, not their randomness.
const hex = (n: number) => 'ab12'.repeat(n).slice(0, n);
const word = (n: number) => 'aB1x'.repeat(n).slice(0, n);

/** Credential shapes the lint missed, as they would be pasted into a catalog. */
const SHAPES: Record<string, string> = {
  sendgrid: `SG.${word(22)}.${word(43)}`,
  'digitalocean pat': `dop_v1_${hex(64)}`,
  'digitalocean oauth': `doo_v1_${hex(64)}`,
  'shopify access token': `shpat_${hex(32)}`,
  'shopify shared secret': `shpss_${hex(32)}`,
  twilio: `SK${hex(32)}`,
  mailgun: `key-${word(32)}`,
  mailchimp: `${hex(32)}-us12`,
  square: `sq0atp-${word(22)}`,
  pypi: `pypi-AgEIcHlwaS5vcmc${word(60)}`,
  telegram: `123456789:AA${word(33)}`,
  'slack webhook': `https://hooks.slack.com/services/T000/B000/${word(24)}`,
  vault: `hvs.${word(24)}`,
  'age key': `AGE-SECRET-KEY-1${word(58).toUpperCase()}`,
  bearer: `Bearer ${word(40)}`,
};

describe('catalog lint: credential shapes and credential names', () => {
  it('refuses each shape in the environment and in argv', () => {
    const missed: string[] = [];
    for (const [name, value] of Object.entries(SHAPES)) {
      const inEnv = problemsWith({ environment: { AGENT_OPTION: value } });
      const inArgv = problemsWith({ command: ['agent', '--opt', value, '{prompt}'] });
      if (!inEnv.some((p) => p.path === 'targets.cloud-a.runtime.environment.AGENT_OPTION'))
        missed.push(`${name} (environment)`);
      if (!inArgv.some((p) => p.path?.startsWith('targets.cloud-a.runtime.command')))
        missed.push(`${name} (argv)`);
    }
    expect(missed).toEqual([]);
  });

  it('refuses literal SESSION, COOKIE and PASSPHRASE values; accepts their paths and switches', () => {
    for (const [name, value] of [
      ['SESSION', 'f3a9c1d2e4'],
      ['APP_SESSION', 'abc'],
      ['COOKIE', 'sid=1234abcd'],
      ['AUTH_COOKIES', 'x'],
      ['GPG_PASSPHRASE', 'correct horse'],
      ['PASSPHRASE', 'x'],
      ['SESSIONID', '42ab'],
    ] as const)
      expect(
        problemsWith({ environment: { [name]: value } }).map((p) => p.path),
        name,
      ).toContain(`targets.cloud-a.runtime.environment.${name}`);
    for (const [name, value] of [
      ['CLAUDE_SESSION_DIR', '~/.claude/sessions'],
      ['SESSION_RESUME', 'true'],
      ['COOKIE_JAR', '/tmp/jar'],
      ['SESSION', '${MY_SESSION}'],
    ] as const)
      expect(problemsWith({ environment: { [name]: value } }), name).toEqual([]);
  });
});
