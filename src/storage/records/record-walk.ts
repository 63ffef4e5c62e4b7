import { RECORD_HEADER_SIZE as HEADER } from '../../format/entity-record.js';

/**
 * Walks the records of one data file with their whole bytes (the storage's own scanner looks at
 * headers only), over the chunks a source delivers for one sequential pass: records inside a
 * chunk are handed over where they are; a record cut by a chunk's end is assembled in a carry
 * buffer. Nothing is allocated per record.
 */

/**
 * One record: `view` holds it at `[at, at + length)`; ids come as signed 32-bit halves. The
 * view's bytes are only valid during the call.
 */
export type RecordBytesVisitor = (
  view: DataView,
  at: number,
  offset: number,
  length: number,
  typeIdLow: number,
  typeIdHigh: number,
  idLow: number,
  idHigh: number,
) => void;

export interface WalkProblem {
  readonly offset: number;
  readonly message: string;
}

const TWO_32 = 4294967296;
const EMPTY = Buffer.alloc(0);

/**
 * Walks the records of `[0, length)` delivered as `chunks`. Stops at the first malformed length
 * field (the storage's index stopped there too) and returns where and why; after each chunk the
 * walk awaits `pause` (to let other work run, or to stop it by throwing).
 */
export async function walkRecordBytes(
  chunks: AsyncIterable<Uint8Array>,
  length: number,
  visit: RecordBytesVisitor,
  pause?: () => Promise<void>,
): Promise<WalkProblem | undefined> {
  let pos = 0; // file offset of the next byte to look at
  let skip = 0; // bytes of a gap still to skip
  // A record (or a length field) cut by the end of a chunk.
  let carry = Buffer.allocUnsafe(0);
  let carryFill = 0;
  let carryNeed = 0; // 0: nothing carried; 8: a length field being completed; else the record length
  let carryView = new DataView(carry.buffer, carry.byteOffset, carry.byteLength);
  for await (const chunk of chunks) {
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let at = 0;
    while (at < chunk.length && pos < length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        pos += n;
        continue;
      }
      if (carryNeed > 0) {
        const n = Math.min(carryNeed - carryFill, chunk.length - at);
        carry.set(chunk.subarray(at, at + n), carryFill);
        carryFill += n;
        at += n;
        if (carryFill < carryNeed) continue;
        if (carryNeed === 8) {
          // The length field is complete: a gap to skip, or a record to assemble whole.
          const high = carryView.getInt32(4, true);
          if (high < 0) {
            const gap = -(high * TWO_32 + carryView.getUint32(0, true));
            if (gap < 8 || pos + gap > length) return { offset: pos, message: `gap of ${gap} bytes is invalid here` };
            pos += 8;
            skip = gap - 8;
            carryNeed = 0;
            continue;
          }
          const total = recordLength(carryView, 0, pos, length);
          if (typeof total !== 'number') return total;
          if (carry.length < total) {
            const bigger = Buffer.allocUnsafe(total);
            carry.copy(bigger, 0, 0, carryFill);
            carry = bigger;
            carryView = new DataView(carry.buffer, carry.byteOffset, carry.byteLength);
          }
          carryNeed = total;
          continue;
        }
        visit(carryView, 0, pos, carryNeed, carryView.getInt32(8, true), carryView.getInt32(12, true), carryView.getInt32(16, true), carryView.getInt32(20, true));
        pos += carryNeed;
        carryNeed = 0;
        carryFill = 0;
        // The next record cut by a chunk's end gets a buffer of its own: a visitor may still hold
        // a view of this one until the chunk is done (latest-records.ts borrows them).
        carry = EMPTY;
        continue;
      }
      // Whole records in this chunk, in a loop of their own; the rest (gaps, records cut by the
      // chunk's end, damage) is looked at here.
      const stop = walkWholeRecords(view, at, chunk.length, pos, length, visit);
      pos += stop - at;
      at = stop;
      if (at >= chunk.length || pos >= length) break;
      if (length - pos < 8) return { offset: pos, message: `${length - pos} trailing bytes are too short for a record length` };
      const available = chunk.length - at;
      if (available < 8) {
        // Not even the length field: carry what there is and decide with the next chunk.
        startCarry(8);
        continue;
      }
      const low = view.getUint32(at, true);
      const high = view.getInt32(at + 4, true);
      if (high < 0) {
        const gap = -(high * TWO_32 + low);
        if (gap < 8 || pos + gap > length) return { offset: pos, message: `gap of ${gap} bytes is invalid here` };
        skip = gap;
        continue;
      }
      const total = recordLength(view, at, pos, length);
      if (typeof total !== 'number') return total;
      if (total > available) {
        startCarry(total);
        continue;
      }
      visit(view, at, pos, total, view.getInt32(at + 8, true), view.getInt32(at + 12, true), view.getInt32(at + 16, true), view.getInt32(at + 20, true));
      at += total;
      pos += total;
    }
    if (pause !== undefined) await pause();

    function startCarry(need: number): void {
      if (carry.length < need) {
        carry = Buffer.allocUnsafe(Math.max(need, HEADER));
        carryView = new DataView(carry.buffer, carry.byteOffset, carry.byteLength);
      }
      carryNeed = need;
      carryFill = 0;
    }
  }
  if (carryNeed > 0 || pos < length) return { offset: pos, message: `the file ends at ${pos}, before its committed length ${length}` };
  return undefined;
}

/**
 * Visits the records lying wholly in `view[at, end)` one after the other, from `at` (file offset
 * `pos`) on, and returns where it stopped: at a gap, a record the chunk's end cuts, the committed
 * length, or bytes that are not a record (the caller looks at those). A small synchronous loop of
 * its own: V8 compiles it, with the visitor inlined, once or twice per thread; with the chunk
 * handling around it in one async function, the whole was compiled 13 times in a graph build of
 * 10M entities (each rarely taken path deoptimized it once more), 20–27 ms each.
 */
function walkWholeRecords(view: DataView, at: number, end: number, pos: number, length: number, visit: RecordBytesVisitor): number {
  const first = at - pos;
  while (end - at >= HEADER) {
    const total = view.getUint32(at, true);
    if (view.getInt32(at + 4, true) !== 0 || total < HEADER || total > end - at || at - first + total > length) break;
    visit(view, at, at - first, total, view.getInt32(at + 8, true), view.getInt32(at + 12, true), view.getInt32(at + 16, true), view.getInt32(at + 20, true));
    at += total;
  }
  return at;
}

/** The length of the record whose header is at `at`, or why it cannot be one. */
function recordLength(view: DataView, at: number, pos: number, length: number): number | WalkProblem {
  const low = view.getUint32(at, true);
  const high = view.getInt32(at + 4, true);
  if (high !== 0 || low < HEADER) return { offset: pos, message: `invalid record length ${high * TWO_32 + low}` };
  if (pos + low > length) return { offset: pos, message: `record of ${low} bytes runs past the committed length ${length}` };
  return low;
}
