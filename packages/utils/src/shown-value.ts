import { credentialShape, namesCredential, secretInArgument } from './secrets.js';
import { terminalText } from './terminal-text.js';

/** The longest value a problem shows; a longer one is cut and ends in "…". */
export const MAX_SHOWN_VALUE = 80;

const REDACTED = '(redacted)';

/** A key that names a credential: `apiKey`, `X-Api-Token`, `password`, `Authorization`. */
function namesSecret(key: string): boolean {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_');
  return namesCredential(words) || /authori[sz]ation|cookie/i.test(key);
}

/** A string that looks like a credential, whatever key holds it. */
const looksSecret = (text: string) =>
  credentialShape(text) !== undefined || secretInArgument(text) !== undefined;

/** `text` cut to {@link MAX_SHOWN_VALUE} characters, never inside a surrogate pair. */
function cut(text: string): string {
  if (text.length <= MAX_SHOWN_VALUE) return text;
  const head = text.slice(0, MAX_SHOWN_VALUE - 1);
  return `${/[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head}…`;
}

/**
 * An offending input value as a problem shows it: JSON text cut to 80 characters and safe for
 * a terminal. The value of a key that names a credential (`key`, or any key inside the value)
 * and a string shaped like one (a token, a URL with a password) show as "(redacted)": an
 * error message ends up in logs and issue reports.
 */
export function shownValue(value: unknown, key?: PropertyKey): string | undefined {
  if (value === undefined) return undefined;
  if (
    (typeof key === 'string' && namesSecret(key)) ||
    (typeof value === 'string' && looksSecret(value))
  )
    return REDACTED;
  let text: string;
  try {
    text =
      JSON.stringify(value, (inner, v: unknown) =>
        (inner !== '' && namesSecret(inner)) || (typeof v === 'string' && looksSecret(v))
          ? REDACTED
          : v,
      ) ?? `(a ${typeof value})`;
  } catch {
    // A cycle (a YAML alias of its own parent) or a BigInt.
    text = typeof value === 'object' ? '(an object that contains itself)' : String(value);
  }
  return cut(terminalText(text));
}

/** A line of source text (around a syntax error) as a problem shows it: trimmed, cut, terminal-safe. */
export function shownSource(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const key = /^-?\s*["']?([^"':=]+?)["']?\s*[:=]/.exec(trimmed)?.[1];
  return looksSecret(trimmed) || (key !== undefined && namesSecret(key))
    ? REDACTED
    : cut(terminalText(trimmed));
}
