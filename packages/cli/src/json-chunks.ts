/**
 * Encodes a JSON object as UTF-8 chunks, byte for byte what `JSON.stringify(value)` gives:
 * the elements of its top-level arrays are encoded one by one straight into buffers of about
 * `chunkBytes` bytes.
 *
 * Why: one `JSON.stringify` of a large report (10,000 tasks, ~9 MB) becomes a two-byte string
 * as soon as one value holds a non-Latin-1 character (a "—" in a write-set note), which makes
 * V8's encoder several times slower, and the whole document is then copied once more to UTF-8.
 * Small pieces keep that cost per element, and no 9 MB string is built.
 */
export function encodeJsonChunks(
  value: Record<string, unknown>,
  emit: (chunk: Buffer) => void,
  chunkBytes = 1 << 16,
): void {
  let buffer = Buffer.allocUnsafe(chunkBytes);
  let used = 0;
  const flush = () => {
    if (used === 0) return;
    emit(buffer.subarray(0, used));
    buffer = Buffer.allocUnsafe(chunkBytes); // the emitted chunk may still be queued
    used = 0;
  };
  const push = (text: string) => {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes, so this bound never truncates.
    if (text.length * 3 > chunkBytes - used) {
      flush();
      if (text.length * 3 > chunkBytes) {
        emit(Buffer.from(text));
        return;
      }
    }
    used += buffer.write(text, used);
  };
  // toJSON (e.g. a Date) replaces the object before its keys are read, as in JSON.stringify.
  const object = hasToJson(value) ? value.toJSON() : value;
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    const whole = JSON.stringify(object);
    if (whole !== undefined) emit(Buffer.from(whole));
    return;
  }
  push('{');
  let first = true;
  for (const key of Object.keys(object)) {
    const item = (object as Record<string, unknown>)[key];
    const name = JSON.stringify(key);
    if (!Array.isArray(item)) {
      const encoded = JSON.stringify(item);
      if (encoded === undefined) continue; // undefined, functions, symbols: key left out
      push(`${first ? '' : ','}${name}:${encoded}`);
    } else {
      push(`${first ? '' : ','}${name}:[`);
      for (let i = 0; i < item.length; i++)
        push(`${i === 0 ? '' : ','}${JSON.stringify(item[i]) ?? 'null'}`);
      push(']');
    }
    first = false;
  }
  push('}');
  flush();
}

const hasToJson = (value: unknown): value is { toJSON: () => unknown } =>
  typeof (value as { toJSON?: unknown } | null)?.toJSON === 'function';
