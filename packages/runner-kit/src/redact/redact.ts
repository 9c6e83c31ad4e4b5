import type { SecretValue } from '@switchyard/core';
import { credentialShape, namesCredential } from '@switchyard/utils';

// Shorter values are too likely to occur by chance ("1", "true", a port number).
const MIN_SECRET_LENGTH = 8;

// Shell and tool variables whose names read like credentials but hold paths ("PWD" is also a
// password abbreviation): redacting them would mangle every path in the evidence.
const NOT_SECRETS = new Set(['PWD', 'OLDPWD', 'INIT_CWD', 'SSH_AUTH_SOCK']);

/**
 * The values of `env` that look like credentials: the variable's name says so (`*_API_KEY`,
 * `*TOKEN*`, `PASS`…) or the value has a token shape; plus every variable named in
 * `alsoNames` (e.g. each `${VAR}` a catalog expands). Longest first, so a value that contains
 * another is replaced whole.
 */
export function secretValuesOf(
  env: Readonly<Record<string, string | undefined>>,
  alsoNames: Iterable<string> = [],
): SecretValue[] {
  const extra = new Set(alsoNames);
  const found: SecretValue[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) continue;
    if (extra.has(name)) found.push({ name, value });
    else if (NOT_SECRETS.has(name)) continue;
    else if (namesCredential(name) || credentialShape(value)) found.push({ name, value });
  }
  return found.sort((a, b) => b.value.length - a.value.length);
}

/** `text` with every secret value replaced by `[redacted:NAME]`. */
export function redactSecrets(text: string, secrets: readonly SecretValue[]): string {
  let out = text;
  for (const { name, value } of secrets)
    if (out.includes(value)) out = out.split(value).join(`[redacted:${name}]`);
  return out;
}
