/**
 * Compile responses by content hash, least recently used first out. Bounded both in entries and
 * in bytes, so a stream of distinct large designs cannot grow the server's memory.
 */
export class ResultCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    readonly maxEntries = 256,
    readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  get(key: string): Uint8Array | undefined {
    const v = this.entries.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    // Map keeps insertion order: re-inserting makes this the most recently used.
    this.entries.delete(key);
    this.entries.set(key, v);
    this.hits++;
    return v;
  }

  set(key: string, value: Uint8Array): void {
    const size = value.byteLength;
    if (size > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.byteLength;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.byteLength;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }
}
