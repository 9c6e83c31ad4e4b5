import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { SecretValue } from '@switchyard/core';
import { copyPlainData } from '@switchyard/utils';
import { redactSecrets, secretValuesOf } from './redact.js';

// `${NAME}` and `${NAME:-fallback}`, as the catalog expands them.
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;

/** Every variable name a catalog expands (`${NAME}` in any string of it). */
export function catalogReferencedNames(catalog: unknown): string[] {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string')
      for (const m of value.matchAll(REFERENCE)) names.add(m[1] as string);
    else if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value && typeof value === 'object') for (const v of Object.values(value)) walk(v);
  };
  walk(catalog);
  return [...names];
}

/**
 * The secrets a dispatcher run hides: credential-looking values of its environment and the
 * value of every variable the catalog expands (whatever it looks like).
 */
export function dispatcherSecrets(
  env: Readonly<Record<string, string | undefined>>,
  catalog: unknown,
): SecretValue[] {
  return secretValuesOf(env, catalogReferencedNames(catalog));
}

/** A `JSON.stringify` replacer that redacts every string value. */
export function redactingReplacer(
  secrets: readonly SecretValue[],
): ((key: string, value: unknown) => unknown) | undefined {
  if (secrets.length === 0) return undefined;
  return (_key, value) => (typeof value === 'string' ? redactSecrets(value, secrets) : value);
}

/** `value` (JSON-like) with every string redacted; a new value, the input is left alone. */
export function redactDeep<T>(value: T, secrets: readonly SecretValue[]): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets)]),
    ) as T;
  return value;
}

/**
 * `redactDeep(structuredClone(value), secrets)` in one walk: a copy of `value` (plain data)
 * with every string redacted, for a snapshot of state that goes on changing after it is taken.
 */
export function redactedCopy<T>(value: T, secrets: readonly SecretValue[]): T {
  return secrets.length === 0
    ? copyPlainData(value)
    : copyPlainData(value, (text) => redactSecrets(text, secrets));
}

const WINDOW = 1 << 20;

/** The mask written over a secret in a captured file: same byte length, so framing offsets
 * into the file (stream.log) stay valid; `[redacted:NAME]`, or `[redacted]`, padded with `*`. */
export function maskOf(secret: SecretValue, bytes: number): Buffer {
  const label = [`[redacted:${secret.name}]`, '[redacted]'].find((l) => l.length <= bytes);
  const text = label ? label.padEnd(bytes, '*') : '*'.repeat(bytes);
  return Buffer.from(text);
}

/**
 * Overwrites, in place, every occurrence of a secret in `file` with a mask of the same length
 * (`[redacted:NAME]***…`). Streams the file (flat memory for any size); never follows a
 * symlink. Returns how many occurrences were masked.
 */
export function maskSecretsInFile(file: string, secrets: readonly SecretValue[]): number {
  if (secrets.length === 0) return 0;
  const needles = secrets.map((s) => ({ bytes: Buffer.from(s.value), secret: s }));
  const overlap = Math.max(...needles.map((n) => n.bytes.length)) - 1;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 0; // gone, a symlink, or not ours to rewrite
  }
  let masked = 0;
  try {
    if (!fstatSync(fd).isFile()) return 0;
    const buf = Buffer.alloc(WINDOW + overlap);
    for (let pos = 0; ; pos += WINDOW) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      const view = buf.subarray(0, n);
      for (const { bytes, secret } of needles) {
        for (let i = view.indexOf(bytes); i !== -1; i = view.indexOf(bytes, i + bytes.length)) {
          const mask = maskOf(secret, bytes.length);
          mask.copy(view, i);
          writeSync(fd, mask, 0, mask.length, pos + i);
          masked++;
        }
      }
      if (n < buf.length) break;
    }
  } finally {
    closeSync(fd);
  }
  return masked;
}

/** {@link maskSecretsInFile} over every regular file below `dir` (symlinks are not followed). */
export function maskSecretsBelow(dir: string, secrets: readonly SecretValue[]): number {
  if (secrets.length === 0) return 0;
  let masked = 0;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of entries) {
    const path = join(dir, name);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isDirectory()) masked += maskSecretsBelow(path, secrets);
    else if (stat.isFile()) masked += maskSecretsInFile(path, secrets);
  }
  return masked;
}
