import { open, type FileHandle } from 'node:fs/promises';
import { RECORD_HEADER_SIZE as HEADER } from '../format/entity-record.js';

/**
 * Streams the records of one data file with whole bytes (the storage's own scanner looks at
 * headers only): large sequential reads, the next chunk read while the current one is walked, a
 * record cut by a chunk's end carried over to the front of the next chunk, and records larger
 * than the carry space read on their own. Nothing is allocated per record.
 */

/**
 * One record: `view` holds it at `[at, at + length)`; ids come as signed 32-bit halves. Return
 * nothing; the view's bytes are only valid during the call.
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

const CHUNK = 4 * 1024 * 1024;
/** Room before a chunk for the start of a record cut by the previous chunk's end. */
const CARRY = 1024 * 1024;
const TWO_32 = 4294967296;

/** Buffers reused by walks that follow one another (a walk uses two). */
const idle: Buffer[] = [];

function acquire(): Buffer {
  return idle.pop() ?? Buffer.allocUnsafeSlow(CARRY + CHUNK);
}

function release(buffer: Buffer): void {
  if (idle.length < 2) idle.push(buffer);
}

/**
 * Walks the records of `[0, length)` of a file. Stops at the first malformed length field (the
 * storage's index stopped there too) and returns where and why; `yieldEvery` bytes the walk
 * awaits `pause` (to let other work run).
 */
export async function walkRecordBytes(
  path: string,
  length: number,
  visit: RecordBytesVisitor,
  pause?: () => Promise<void>,
): Promise<WalkProblem | undefined> {
  const handle = await open(path, 'r');
  const buffers = [acquire(), acquire()] as const;
  const views = buffers.map((b) => new DataView(b.buffer, b.byteOffset, b.byteLength));
  let pending: Promise<number> | undefined;
  try {
    let which = 0;
    // File offset of buffer byte CARRY of the current buffer.
    let chunkStart = 0;
    pending = length > 0 ? readFully(handle, buffers[0], CARRY, Math.min(CHUNK, length), 0) : undefined;
    // Buffer position and file offset of the next record.
    let carryFrom = CARRY;
    let pos = 0;
    while (pos < length && pending !== undefined) {
      const fill = await pending;
      pending = undefined;
      const chunkEnd = chunkStart + fill;
      if (fill === 0) return { offset: pos, message: `file ends at ${chunkStart}, before its committed length ${length}` };
      if (chunkEnd < length) pending = readFully(handle, buffers[1 - which]!, CARRY, Math.min(CHUNK, length - chunkEnd), chunkEnd);
      const buffer = buffers[which]!;
      const view = views[which]!;
      let at = carryFrom;
      const bufferEnd = CARRY + fill;
      while (pos < length) {
        if (length - pos < 8) return { offset: pos, message: `${length - pos} trailing bytes are too short for a record length` };
        const available = bufferEnd - at;
        if (available < 8) break;
        const low = view.getUint32(at, true);
        const high = view.getInt32(at + 4, true);
        if (high < 0) {
          const gap = -(high * TWO_32 + low);
          if (gap < 8 || pos + gap > length) return { offset: pos, message: `gap of ${gap} bytes is invalid here` };
          if (gap > available) {
            // Skip what lies beyond this chunk: continue with a fresh read after the gap.
            await settle(pending);
            pending = undefined;
            pos += gap;
            at = bufferEnd;
            break;
          }
          pos += gap;
          at += gap;
          continue;
        }
        if (high !== 0 || low < HEADER) return { offset: pos, message: `invalid record length ${high * TWO_32 + low}` };
        if (pos + low > length) return { offset: pos, message: `record of ${low} bytes runs past the committed length ${length}` };
        if (low > available) {
          if (low > CARRY) {
            // Too big to carry over: read it on its own, then continue after it.
            await settle(pending);
            pending = undefined;
            const big = Buffer.allocUnsafe(low);
            const got = await readFully(handle, big, 0, low, pos);
            if (got < low) return { offset: pos, message: `file ends inside a record of ${low} bytes` };
            const bigView = new DataView(big.buffer, big.byteOffset, big.byteLength);
            visit(bigView, 0, pos, low, bigView.getInt32(8, true), bigView.getInt32(12, true), bigView.getInt32(16, true), bigView.getInt32(20, true));
            pos += low;
            at = bufferEnd;
          }
          break;
        }
        visit(view, at, pos, low, view.getInt32(at + 8, true), view.getInt32(at + 12, true), view.getInt32(at + 16, true), view.getInt32(at + 20, true));
        pos += low;
        at += low;
      }
      if (pos >= length) break;
      if (pending === undefined) {
        // The next read was dropped (a big record or gap): start over at `pos`.
        chunkStart = pos;
        which = 0;
        carryFrom = CARRY;
        pending = readFully(handle, buffers[0], CARRY, Math.min(CHUNK, length - pos), pos);
      } else {
        // Carry the unfinished record (at most CARRY bytes) to the front of the next chunk.
        const rest = bufferEnd - at;
        const next = buffers[1 - which]!;
        buffer.copy(next, CARRY - rest, at, bufferEnd);
        carryFrom = CARRY - rest;
        chunkStart = chunkEnd;
        which = 1 - which;
      }
      if (pause !== undefined) await pause();
    }
    return undefined;
  } finally {
    await settle(pending);
    await handle.close();
    release(buffers[0]);
    release(buffers[1]);
  }
}

async function settle(pending: Promise<number> | undefined): Promise<void> {
  if (pending !== undefined) await pending.catch(() => undefined);
}

async function readFully(handle: FileHandle, buffer: Buffer, at: number, length: number, position: number): Promise<number> {
  let fill = 0;
  while (fill < length) {
    const { bytesRead } = await handle.read(buffer, at + fill, length - fill, position + fill);
    if (bytesRead === 0) break;
    fill += bytesRead;
  }
  return fill;
}
