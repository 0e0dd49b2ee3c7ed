/**
 * Typed arrays lent to one computation and taken back when it ends, for the next one. A
 * simulation of a large plan fills tens of megabytes of arrays it drops when it returns; taken
 * fresh each time, that memory is zeroed and mapped again by the system and the garbage
 * collector is pressed to reclaim it, which costs more than the work done in it. Memory the
 * pool keeps is reused instead.
 *
 * A computation opens a loan with `lend`, takes arrays from it, and closes it with `close`; an
 * array must not be used after its loan closed (nor handed out of the computation). Loans nest:
 * a loan opened inside another is closed before it. Each thread has its own pool (module state),
 * so workers never share one.
 */

/** Where a computation gets its typed arrays: a loan, or `FRESH` memory. */
export interface ArraySource {
  /** `length` zeros (or `fill`s). */
  int32(length: number, fill?: number): Int32Array;
  float64(length: number, fill?: number): Float64Array;
  uint8(length: number, fill?: number): Uint8Array;
}

/** New arrays every time, for callers that keep them. */
export const FRESH: ArraySource = {
  int32: (length, fill = 0) => (fill === 0 ? new Int32Array(length) : new Int32Array(length).fill(fill)),
  float64: (length, fill = 0) =>
    fill === 0 ? new Float64Array(length) : new Float64Array(length).fill(fill),
  uint8: (length, fill = 0) => (fill === 0 ? new Uint8Array(length) : new Uint8Array(length).fill(fill)),
};

/** Bytes the pool keeps between loans; beyond that, closed loans give their memory up. */
const KEEP_BYTES = 96 * 2 ** 20;

const free: ArrayBuffer[] = [];
let freeBytes = 0;

export class Loan implements ArraySource {
  private readonly taken: ArrayBuffer[] = [];
  private closed = false;

  /** `length` zeros (or `fill`s). */
  int32(length: number, fill = 0): Int32Array {
    return new Int32Array(this.take(length * 4), 0, length).fill(fill);
  }

  float64(length: number, fill = 0): Float64Array {
    return new Float64Array(this.take(length * 8), 0, length).fill(fill);
  }

  uint8(length: number, fill = 0): Uint8Array {
    return new Uint8Array(this.take(length), 0, length).fill(fill);
  }

  /** Gives every array of the loan back to the pool. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const b of this.taken) {
      if (freeBytes + b.byteLength > KEEP_BYTES) continue;
      free.push(b);
      freeBytes += b.byteLength;
    }
    this.taken.length = 0;
  }

  private take(bytes: number): ArrayBuffer {
    // The smallest kept buffer that holds `bytes`, else a new one (rounded up, so that sizes
    // that vary a little between computations still find one).
    let best = -1;
    for (let i = 0; i < free.length; i++) {
      const b = free[i]!;
      if (b.byteLength >= bytes && (best < 0 || b.byteLength < free[best]!.byteLength)) best = i;
    }
    let buffer: ArrayBuffer;
    if (best >= 0) {
      buffer = free[best]!;
      free[best] = free[free.length - 1]!;
      free.pop();
      freeBytes -= buffer.byteLength;
    } else buffer = new ArrayBuffer(Math.max(64, bytes + (bytes >> 4)));
    this.taken.push(buffer);
    return buffer;
  }
}

/** A new loan on this thread's pool. */
export function lend(): Loan {
  return new Loan();
}
