/**
 * Keeps the last `maxLines` lines of a stream, each cut to `maxLineChars`, in a ring: memory
 * is bounded however long the stream runs.
 */
export class TailBuffer {
  readonly #lines: string[];
  readonly #maxLines: number;
  readonly #maxChars: number;
  #next = 0;
  #count = 0;

  constructor(maxLines = 200, maxLineChars = 4096) {
    this.#maxLines = Math.max(1, maxLines);
    this.#maxChars = Math.max(16, maxLineChars);
    this.#lines = new Array<string>(this.#maxLines);
  }

  push(line: string): void {
    const kept = line.length > this.#maxChars ? `${line.slice(0, this.#maxChars)}…` : line;
    this.#lines[this.#next] = kept;
    this.#next = (this.#next + 1) % this.#maxLines;
    if (this.#count < this.#maxLines) this.#count++;
  }

  /** The kept lines, oldest first. */
  toArray(): string[] {
    const out: string[] = [];
    const first = (this.#next - this.#count + this.#maxLines) % this.#maxLines;
    for (let i = 0; i < this.#count; i++) out.push(this.#lines[(first + i) % this.#maxLines]!);
    return out;
  }

  get size(): number {
    return this.#count;
  }
}
