/**
 * Catalogs are shared and committed, so they must not embed credentials. Environment values
 * may instead reference the dispatcher's own environment with `${NAME}` or
 * `${NAME:-default}`; the reference is expanded when the target is launched.
 */

const TOKEN_SHAPES: { name: string; pattern: RegExp }[] = [
  { name: 'an API key (sk-…)', pattern: /\bsk-[A-Za-z0-9_-]{16,}/ },
  {
    name: 'a GitHub token',
    pattern: /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/,
  },
  { name: 'a GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { name: 'an AWS access key id', pattern: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { name: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{30,}/ },
  { name: 'a JSON Web Token', pattern: /\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,}/ },
  { name: 'a private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { name: 'a URL with a password', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i },
  { name: 'a Stripe key', pattern: /\b(sk|rk)_(live|test)_[A-Za-z0-9]{16,}/ },
  { name: 'a Hugging Face token', pattern: /\bhf_[A-Za-z0-9]{30,}/ },
  { name: 'an Anthropic or OpenAI key', pattern: /\bsk-(ant|proj|svcacct)-[A-Za-z0-9_-]{16,}/ },
  { name: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { name: 'a SendGrid API key', pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/ },
  { name: 'a DigitalOcean token', pattern: /\bdo[opr]_v1_[a-f0-9]{32,}/ },
  { name: 'a Shopify token', pattern: /\bshp(at|ss|ca|pa)_[a-fA-F0-9]{32}/ },
  { name: 'a Twilio API key', pattern: /\bSK[0-9a-fA-F]{32}\b/ },
  { name: 'a Mailgun key', pattern: /\bkey-[0-9a-zA-Z]{32}\b/ },
  { name: 'a Mailchimp key', pattern: /\b[0-9a-f]{32}-us[0-9]{1,2}\b/ },
  {
    name: 'a Square token',
    pattern: /\b(sq0atp|sq0csp)-[0-9A-Za-z_-]{22,}|\bEAAA[0-9A-Za-z_-]{60,}/,
  },
  { name: 'a PyPI token', pattern: /\bpypi-AgE[A-Za-z0-9_-]{40,}/ },
  {
    name: 'a Discord bot token',
    pattern: /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/,
  },
  {
    name: 'a webhook URL with its secret',
    pattern:
      /hooks\.slack\.com\/services\/[A-Za-z0-9/]+|discord(app)?\.com\/api\/webhooks\/\d+\/[\w-]+/,
  },
  { name: 'a Telegram bot token', pattern: /\b\d{8,10}:AA[0-9A-Za-z_-]{32,}/ },
  {
    name: 'a service token',
    pattern:
      /\b(lin_api_[A-Za-z0-9]{32,}|hvs\.[A-Za-z0-9_-]{24,}|dapi[a-f0-9]{32}|glc_[A-Za-z0-9+/=_-]{32,}|glsa_[A-Za-z0-9_]{32,}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|gsk_[A-Za-z0-9]{40,}|r8_[A-Za-z0-9]{30,}|pul-[a-f0-9]{40}|sntrys_[A-Za-z0-9+/=_-]{40,}|sbp_[a-f0-9]{40}|ATATT3[A-Za-z0-9_=-]{40,}|dp\.pt\.[A-Za-z0-9]{40,}|nfp_[A-Za-z0-9]{30,})/,
  },
  { name: 'an age secret key', pattern: /\bAGE-SECRET-KEY-1[0-9A-Z]{50,}/ },
  { name: 'an Azure storage key', pattern: /AccountKey=[A-Za-z0-9+/=]{40,}/ },
  {
    name: 'an authorization header',
    pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}|\bCookie:\s*\S+=\S+/i,
  },
  {
    name: 'an AWS secret access key',
    pattern:
      /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/,
  },
];

// A name is a credential's when one of its `_`-separated words is one of these
// (`PASS`, `TOKEN_`, `DB_PASSWORD_FILE`…), or it ends in one (`APIKEY`, `GITHUBTOKEN`).
const SECRET_WORDS = new Set([
  'KEY',
  'APIKEY',
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASS',
  'PWD',
  'CREDENTIAL',
  'CREDENTIALS',
  'AUTH',
  'PRIVATE',
  'PASSPHRASE',
  'SESSION',
  'SESSIONID',
  'COOKIE',
  'COOKIES',
]);
const SECRET_SUFFIX = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|SESSIONID)$/i;
// Words that name a credential, but also the folder or switch of one (`SESSION_DIR=~/.x`).
const SOFT_WORDS = new Set(['SESSION', 'COOKIE', 'COOKIES']);

/** True when an environment variable name says it holds a credential. */
export function namesCredential(name: string): boolean {
  if (SECRET_SUFFIX.test(name)) return true;
  return name
    .toUpperCase()
    .split('_')
    .some((word) => SECRET_WORDS.has(word));
}

/** True when only a soft word (SESSION, COOKIE) makes the name a credential's and the value is
 * a path, a switch or a number: `CLAUDE_SESSION_DIR=~/.claude`, `SESSION_RESUME=true`. */
function softlyNamed(name: string, literal: string): boolean {
  const words = name.toUpperCase().split('_');
  const hard =
    SECRET_SUFFIX.test(name) || words.some((w) => SECRET_WORDS.has(w) && !SOFT_WORDS.has(w));
  return !hard && /^([~.]?\/\S*|true|false|yes|no|on|off|\d+)$/i.test(literal.trim());
}
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Shannon entropy in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A long literal that mixes letters and digits with near-random entropy (URLs and paths excepted). */
function looksRandom(value: string): boolean {
  if (value.length < 20 || /\s/.test(value) || /^[a-z]+:\/\//i.test(value) || value.includes('/'))
    return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  return shannonEntropy(value) >= 4;
}

/** The name of the credential shape `value` contains, if any. */
export function credentialShape(value: string): string | undefined {
  for (const shape of TOKEN_SHAPES) if (shape.pattern.test(value)) return shape.name;
  for (const word of value.split(/[\s=:,;"']+/)) {
    if (looksRandom(word)) return 'a long high-entropy literal';
  }
  return undefined;
}

/**
 * Why one argv element embeds a credential: a token shape, a `NAME=value` assignment whose
 * name is a credential's (`PASS=…`, `TOKEN_=…`), or a `--token=…`-style flag with a literal.
 */
export function secretInArgument(element: string): string | undefined {
  const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(element);
  // Token shapes are reported for every template already; here only the name rule.
  if (assignment && !credentialShape(element))
    return secretInEnvironment(assignment[1] as string, assignment[2] as string);
  const flag = /^--?([A-Za-z][\w-]*)=(.+)$/s.exec(element);
  if (flag) {
    const literal = (flag[2] as string).replace(REFERENCE, '').replace(/\{[a-z_]+\}/g, '');
    if (namesCredential((flag[1] as string).replace(/-/g, '_')) && literal.trim() !== '')
      return `the flag --${flag[1]} has a literal value`;
  }
  return undefined;
}

/** Why an environment entry looks like an embedded secret, or undefined when it does not. */
export function secretInEnvironment(name: string, value: string): string | undefined {
  const defaults = [...value.matchAll(REFERENCE)].map((m) => m[2] ?? '');
  const literal = value.replace(REFERENCE, '');
  const shape = credentialShape(literal) ?? defaults.map(credentialShape).find(Boolean);
  if (shape) return `the value looks like ${shape}`;
  if (
    namesCredential(name) &&
    literal.trim() !== '' &&
    !/^\d+$/.test(literal.trim()) &&
    !softlyNamed(name, literal)
  ) {
    return `"${name}" names a credential but has a literal value`;
  }
  return undefined;
}

/** The hint every secret problem carries. */
export const SECRET_HINT =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shows the ${NAME} reference syntax
  'do not embed credentials in a catalog; reference the environment instead, e.g. "${MY_API_KEY}", and set MY_API_KEY where switchyard runs';

/**
 * Expands `${NAME}` / `${NAME:-default}` references against `env`. Names that are unset and
 * have no default expand to "" and are listed in `missing`.
 */
export function expandEnvironmentValue(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
): { value: string; missing: string[] } {
  const missing: string[] = [];
  const expanded = value.replace(REFERENCE, (_whole, name: string, fallback?: string) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
  return { value: expanded, missing };
}
