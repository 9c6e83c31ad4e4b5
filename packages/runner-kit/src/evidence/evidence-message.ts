/**
 * The error message an evidence line carries, for reasons shown to people: for a JSON event
 * line its `result`, `message` or `error.message` (never the raw object, which a width limit
 * would cut in the middle); for a line that ends in a JSON object (`API Error: 401 {…}`) the
 * prefix followed by that object's message. Any other line is returned as it is.
 */
export function evidenceMessage(line: string): string {
  const trimmed = line.trim();
  const brace = trimmed.indexOf('{');
  if (brace < 0 || !trimmed.endsWith('}')) return trimmed;
  const message = messageOf(trimmed.slice(brace));
  if (message === undefined) return trimmed;
  const prefix = trimmed.slice(0, brace).trim();
  return prefix ? `${prefix} ${message}` : message;
}

/** The first non-empty message field of a JSON object (nested `error` objects included). */
function messageOf(json: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  for (let depth = 0; depth < 3 && value && typeof value === 'object'; depth++) {
    const event = value as Record<string, unknown>;
    for (const key of ['result', 'message', 'error']) {
      const field = event[key];
      if (typeof field === 'string' && field.trim() !== '') {
        // A message that is itself JSON (an API error body) is unwrapped once more.
        return field.trim().startsWith('{') ? (messageOf(field) ?? field.trim()) : field.trim();
      }
    }
    value = event.error;
  }
  return undefined;
}
