/**
 * Collects text into UTF-8 buffers of about `chunkBytes` bytes and passes each full one on:
 * large documents are written piece by piece, without one big string.
 */
export class Utf8ChunkWriter {
  #buffer: Buffer;
  #used = 0;

  constructor(
    private readonly emit: (chunk: Buffer) => void,
    private readonly chunkBytes = 1 << 16,
  ) {
    this.#buffer = Buffer.allocUnsafe(chunkBytes);
  }

  /** Appends `text` (encoded as UTF-8). */
  push(text: string): void {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes, so this bound never truncates.
    if (text.length * 3 > this.chunkBytes - this.#used) {
      this.flush();
      if (text.length * 3 > this.chunkBytes) {
        this.emit(Buffer.from(text));
        return;
      }
    }
    this.#used += this.#buffer.write(text, this.#used);
  }

  /** Passes on what is collected so far. */
  flush(): void {
    if (this.#used === 0) return;
    this.emit(this.#buffer.subarray(0, this.#used));
    this.#buffer = Buffer.allocUnsafe(this.chunkBytes); // the passed chunk may still be queued
    this.#used = 0;
  }
}

/**
 * Encodes a JSON object as UTF-8 chunks, byte for byte what `JSON.stringify(value)` gives:
 * the elements of its top-level arrays and the properties of its top-level objects are
 * encoded one by one.
 *
 * Why: one `JSON.stringify` of a large document (a 10,000-task dry-run report, ~9 MB)
 * becomes a two-byte string as soon as one value holds a non-Latin-1 character (a "—" in a
 * write-set note), which makes V8's encoder several times slower, and the whole document is
 * then copied once more to UTF-8. Small pieces keep that cost per element.
 */
export function encodeJsonChunks(
  value: object,
  emit: (chunk: Buffer) => void,
  chunkBytes?: number,
): void {
  const out = new Utf8ChunkWriter(emit, chunkBytes);
  // toJSON (e.g. a Date) replaces the value before its keys are read, as in JSON.stringify.
  const object: unknown = hasToJson(value) ? value.toJSON() : value;
  if (object === null || typeof object !== 'object') {
    const whole = JSON.stringify(object);
    if (whole !== undefined) out.push(whole);
  } else if (Array.isArray(object)) encodeArray(object, out);
  else encodeProperties(object as Record<string, unknown>, out, 1);
  out.flush();
}

function encodeArray(items: readonly unknown[], out: Utf8ChunkWriter): void {
  out.push('[');
  for (let i = 0; i < items.length; i++)
    out.push(`${i === 0 ? '' : ','}${JSON.stringify(items[i]) ?? 'null'}`);
  out.push(']');
}

// An object's properties one by one; down to `depth` more levels, arrays and object literals
// are split into their elements too.
function encodeProperties(
  object: Record<string, unknown>,
  out: Utf8ChunkWriter,
  depth: number,
): void {
  out.push('{');
  let first = true;
  for (const key of Object.keys(object)) {
    const item = object[key];
    const prefix = `${first ? '' : ','}${JSON.stringify(key)}:`;
    if (depth > 0 && Array.isArray(item)) {
      out.push(prefix);
      encodeArray(item, out);
    } else if (depth > 0 && isPlainObject(item)) {
      out.push(prefix);
      encodeProperties(item, out, depth - 1);
    } else {
      const encoded = JSON.stringify(item);
      if (encoded === undefined) continue; // undefined, functions, symbols: key left out
      out.push(prefix + encoded);
    }
    first = false;
  }
  out.push('}');
}

// Object literals without toJSON; anything else (a Date, a boxed string, a class instance) is
// left to JSON.stringify whole.
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || hasToJson(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

const hasToJson = (value: unknown): value is { toJSON: () => unknown } =>
  typeof (value as { toJSON?: unknown } | null)?.toJSON === 'function';
