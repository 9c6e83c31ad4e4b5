import type { SecretValue } from '@switchyard/core';
import { maskOf } from './secret-set.js';

/** A secret found in a stream: where (absolute byte offset in the stream) and its mask. */
export interface StreamMask {
  offset: number;
  mask: Buffer;
}

/** What one chunk gives: bytes safe to pass on, and the masks to write over the source. */
export interface MaskedChunk {
  /** Masked bytes, starting at `offset` of the stream. */
  data: Buffer;
  offset: number;
  /** Every secret found since the last call (its bytes may span earlier chunks). */
  masks: StreamMask[];
}

/**
 * Masks secrets in a byte stream read chunk by chunk, with a same-length mask
 * (`[redacted:NAME]***`, so offsets stay valid). A secret may be split across chunks: the
 * last `longest secret - 1` bytes of what was read are held back until the next chunk (or
 * `end()`) shows whether they start one, so no part of a secret is ever passed on.
 */
export class StreamMasker {
  readonly #needles: Array<{ bytes: Buffer; secret: SecretValue }>;
  readonly #hold: number;
  #pending: Buffer = Buffer.alloc(0);
  #offset: number;

  /** `offset`: where in the stream the first chunk starts (a resumed tail). */
  constructor(secrets: readonly SecretValue[], offset = 0) {
    // longest first: a secret containing another is masked whole
    this.#needles = [...secrets]
      .map((secret) => ({ bytes: Buffer.from(secret.value), secret }))
      .filter((n) => n.bytes.length > 0)
      .sort((a, b) => b.bytes.length - a.bytes.length);
    this.#hold = Math.max(0, ...this.#needles.map((n) => n.bytes.length - 1));
    this.#offset = offset;
  }

  /** True when there is nothing to mask (callers may skip the copy). */
  get empty(): boolean {
    return this.#needles.length === 0;
  }

  /** Feeds the next chunk; returns what is safe to pass on (possibly nothing yet). */
  push(chunk: Buffer): MaskedChunk {
    const buf =
      this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : Buffer.from(chunk);
    const masks = this.#mask(buf);
    // never hold back the inside of a mask already written: it is safe
    const lastMaskEnd = masks.reduce(
      (end, m) => Math.max(end, m.offset - this.#offset + m.mask.length),
      0,
    );
    const cut = Math.max(lastMaskEnd, this.#safeEnd(buf));
    return this.#emit(buf, cut, masks);
  }

  /** Where the bytes that could still begin a secret start: the longest suffix of `buf`
   * that is a prefix of a secret (usually none, so nothing is held back). */
  #safeEnd(buf: Buffer): number {
    let end = buf.length;
    for (const { bytes } of this.#needles) {
      const first = bytes[0] as number;
      for (let i = Math.max(0, buf.length - this.#hold); i < end; i++) {
        if (buf[i] !== first) continue;
        if (buf.subarray(i).equals(bytes.subarray(0, buf.length - i))) {
          end = i;
          break;
        }
      }
    }
    return end;
  }

  /** The stream ended: everything held back, masked. */
  end(): MaskedChunk {
    const buf = this.#pending;
    return this.#emit(buf, buf.length, []);
  }

  #mask(buf: Buffer): StreamMask[] {
    const masks: StreamMask[] = [];
    for (const { bytes, secret } of this.#needles) {
      for (let i = buf.indexOf(bytes); i !== -1; i = buf.indexOf(bytes, i + bytes.length)) {
        const mask = maskOf(secret, bytes.length);
        mask.copy(buf, i);
        masks.push({ offset: this.#offset + i, mask });
      }
    }
    return masks;
  }

  #emit(buf: Buffer, cut: number, masks: StreamMask[]): MaskedChunk {
    const at = Math.max(0, Math.min(cut, buf.length));
    const out = { data: buf.subarray(0, at), offset: this.#offset, masks };
    this.#pending = buf.subarray(at);
    this.#offset += at;
    return out;
  }
}
