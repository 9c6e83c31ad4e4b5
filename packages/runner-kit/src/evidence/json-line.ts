/**
 * Parses one output line as a JSON object. Agents interleave JSON events with noise (progress
 * bars, warnings, stack traces): anything that is not a JSON object yields `undefined`.
 */
export function parseJsonObjectLine(text: string): Record<string, unknown> | undefined {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) i++;
  if (text.charCodeAt(i) !== 0x7b /* { */) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
