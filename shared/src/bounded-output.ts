/**
 * A byte buffer that holds at most a fixed number of bytes however much is written to it: the
 * first half of the budget keeps the head, a ring keeps the tail, and the bytes between are only
 * counted. A command that prints 1 GB costs the harness the budget and no more.
 */

/** Default bytes of output kept per stream, head and tail together (a bash call's, a hook's). */
export const DEFAULT_MAX_OUTPUT_BYTES = 30_000;

/** Head and tail of a byte stream, within a fixed budget. */
export class BoundedOutput {
  private readonly head: Buffer;
  private headLength = 0;
  private readonly tail: Buffer;
  private tailStart = 0; // index of the oldest byte in the ring
  private tailLength = 0;
  /** Every byte written, kept or not. */
  totalBytes = 0;

  /** `maxBytes` is the whole budget, split evenly between head and tail. */
  constructor(readonly maxBytes: number) {
    this.head = Buffer.alloc(Math.ceil(maxBytes / 2));
    this.tail = Buffer.alloc(Math.floor(maxBytes / 2));
  }

  /** Add bytes; once the head is full they go to the tail ring, pushing its oldest bytes out. */
  write(chunk: Uint8Array): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headLength < this.head.length) {
      const n = Math.min(rest.length, this.head.length - this.headLength);
      this.head.set(rest.subarray(0, n), this.headLength);
      this.headLength += n;
      rest = rest.subarray(n);
    }
    const cap = this.tail.length;
    if (rest.length === 0 || cap === 0) return;
    if (rest.length >= cap) {
      // the chunk alone fills the ring: only its last `cap` bytes survive
      this.tail.set(rest.subarray(rest.length - cap));
      this.tailStart = 0;
      this.tailLength = cap;
      return;
    }
    const end = (this.tailStart + this.tailLength) % cap;
    const first = Math.min(rest.length, cap - end);
    this.tail.set(rest.subarray(0, first), end);
    this.tail.set(rest.subarray(first), 0);
    const overflow = Math.max(0, this.tailLength + rest.length - cap);
    this.tailLength = Math.min(cap, this.tailLength + rest.length);
    this.tailStart = (this.tailStart + overflow) % cap;
  }

  /** Bytes written but not kept. */
  get cutBytes(): number {
    return this.totalBytes - this.headLength - this.tailLength;
  }

  /**
   * The kept text: head, a marker saying how many bytes were cut (when any were), tail.
   * Invalid UTF-8 becomes U+FFFD and NUL bytes become U+FFFD too, so binary output is
   * readable text and never an exception.
   */
  text(): string {
    const decode = (bytes: Uint8Array) =>
      new TextDecoder("utf-8", { fatal: false }).decode(bytes).replaceAll("\0", "\uFFFD");
    const head = decode(this.head.subarray(0, this.headLength));
    if (this.tailLength === 0) return head;
    const ring = Buffer.concat([
      this.tail.subarray(this.tailStart, this.tailStart + this.tailLength),
      this.tail.subarray(0, Math.max(0, this.tailStart + this.tailLength - this.tail.length)),
    ]);
    const tail = decode(ring);
    if (this.cutBytes === 0) return decode(Buffer.concat([this.head.subarray(0, this.headLength), ring]));
    return `${head}\n\n[... ${this.cutBytes} bytes of output cut ...]\n\n${tail}`;
  }
}
