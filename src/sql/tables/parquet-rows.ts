import { closeSync, openSync, writeSync } from 'node:fs';
import { dictionaryPageHeader, fileMetaData, pageHeader, PLAIN, RLE_DICTIONARY, varint, type ChunkMeta, type ParquetColumn, type ParquetColumnType, type RowGroupMeta } from './parquet-metadata.js';

export type { ParquetColumn, ParquetColumnType } from './parquet-metadata.js';

/**
 * A Parquet file written row by row from typed arrays, for rows DuckDB then reads with its own
 * reader (an export's `_elements` and `_references`: tens of millions of rows that DuckDB's
 * appender takes one thread and most of the export's time to take in). Only what those rows need:
 * INT64, INT32 and UTF-8 text columns, each REQUIRED or OPTIONAL, PLAIN encoding (a text column
 * of few distinct values: a dictionary), no compression, one data page (v1) per column and row
 * group (a row group of at most ROW_GROUP_ROWS rows, and ended early by texts that fill
 * ROW_GROUP_TEXT_BYTES). PLAIN INT64 / INT32 values are the little-endian bytes of a typed array; a text is its
 * length (4 bytes) and UTF-8 bytes; an optional column's definition levels are bit-packed runs of
 * width 1 (the RLE/bit-packing hybrid). The page headers and the footer: parquet-metadata.ts. The
 * same append calls as the chunk appender (`ChunkAppender`), one value per column in order, then
 * `endRow`.
 */

/** The rows of one row group, at most (DuckDB's own row group size: its reader's unit of parallel work). */
export const ROW_GROUP_ROWS = 122_880;

/**
 * A row group ends early once a text column holds this many bytes: its page's size is an i32 in
 * the page header (at most 2^31 - 1 bytes, one text of a JS string at most 1.6 GB of UTF-8), and
 * the column's buffer is held in memory until the row group is written.
 */
export const ROW_GROUP_TEXT_BYTES = 64 * 1024 * 1024;

interface ColumnBuffer {
  readonly spec: ParquetColumn;
  /** int64 as 32-bit halves, int32 as is; only the values present (NULLs take no slot). */
  readonly words: Int32Array | undefined;
  /** Texts: length-prefixed UTF-8, growing. */
  text: Uint8Array | undefined;
  textBytes: number;
  /** Dictionary columns: each text's index (its entry written once into `text`), and the rows' indices. */
  readonly entries: Map<string, number> | undefined;
  readonly indices: Int32Array | undefined;
  /** Dictionary columns: the last text given and its index (cleared with the dictionary). */
  lastText: string | undefined;
  lastIndex: number;
  /** Values present in this row group (not NULL). */
  values: number;
  /** One bit per row, set when present (optional columns). */
  readonly defined: Uint8Array | undefined;
  hasNull: boolean;
  /** Over every row group, for the footer. */
  readonly chunks: ChunkMeta[];
}

/** One 64-bit value seen as its two 32-bit halves (little-endian: low first). */
const SCRATCH_64 = new BigInt64Array(1);
const SCRATCH_32 = new Int32Array(SCRATCH_64.buffer);

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]);
const UTF8 = new TextEncoder();

export class ParquetRowWriter {
  private readonly fd: number;
  private readonly columns: ColumnBuffer[];
  private readonly groupRows: number;
  private row = 0;
  private column = 0;
  private offset = 0;
  private total = 0;
  private readonly groups: RowGroupMeta[] = [];
  private closed = false;
  /** A text column has reached ROW_GROUP_TEXT_BYTES: the row group ends with this row. */
  private full = false;

  /** Creates `path` (it must not exist). */
  constructor(
    private readonly path: string,
    columns: readonly ParquetColumn[],
    rowGroupRows: number = ROW_GROUP_ROWS,
  ) {
    if (!Number.isSafeInteger(rowGroupRows) || rowGroupRows < 1 || rowGroupRows > 1 << 24) throw new RangeError(`rows per row group must be 1 to ${1 << 24}, not ${rowGroupRows}`);
    if (columns.length === 0) throw new RangeError('a Parquet file needs at least one column');
    for (const c of columns) if (c.dictionary === true && c.type !== 'text') throw new RangeError(`column ${c.name}: only texts take a dictionary`);
    this.groupRows = rowGroupRows;
    this.columns = columns.map((spec) => ({
      spec,
      words: spec.type === 'int64' ? new Int32Array(rowGroupRows * 2) : spec.type === 'int32' ? new Int32Array(rowGroupRows) : undefined,
      text: spec.type === 'text' ? new Uint8Array(Math.min(rowGroupRows * 16, 1 << 20)) : undefined,
      textBytes: 0,
      entries: spec.dictionary === true ? new Map() : undefined,
      indices: spec.dictionary === true ? new Int32Array(rowGroupRows) : undefined,
      lastText: undefined,
      lastIndex: 0,
      values: 0,
      defined: spec.nullable ? new Uint8Array(Math.ceil(rowGroupRows / 8)) : undefined,
      hasNull: false,
      chunks: [],
    }));
    this.fd = openSync(path, 'wx');
    this.write(MAGIC);
  }

  /** Rows appended so far. */
  get rows(): number {
    return this.total + this.row;
  }

  private next(type: ParquetColumnType | undefined): ColumnBuffer {
    const column = this.columns[this.column++];
    if (column === undefined) throw new Error(`a row of more than ${this.columns.length} values`);
    if (type !== undefined && column.spec.type !== type) throw new Error(`column ${column.spec.name} is ${column.spec.type}, not ${type}`);
    if (column.defined !== undefined) column.defined[this.row >>> 3]! |= 1 << (this.row & 7);
    return column;
  }

  appendNull(): void {
    const column = this.columns[this.column++];
    if (column === undefined) throw new Error(`a row of more than ${this.columns.length} values`);
    if (column.defined === undefined) throw new Error(`column ${column.spec.name} takes no NULL`);
    column.hasNull = true;
  }
  appendBigInt(value: bigint): void {
    const column = this.next('int64');
    const at = column.values++ * 2;
    // Taken apart through a typed array: no bigint made (three per value before, 2 s at 10M).
    SCRATCH_64[0] = value;
    column.words![at] = SCRATCH_32[0]!;
    column.words![at + 1] = SCRATCH_32[1]!;
  }
  /** A BIGINT given as 32-bit halves (an object id as the walk reads it): no bigint made. */
  appendBigIntHalves(low: number, high: number): void {
    const column = this.next('int64');
    const at = column.values++ * 2;
    column.words![at] = low;
    column.words![at + 1] = high;
  }
  /** A BIGINT from a non-negative safe integer (a position, a length). */
  appendBigIntNumber(value: number): void {
    this.appendBigIntHalves(value >>> 0, Math.floor(value / 4294967296));
  }
  appendInteger(value: number): void {
    const column = this.next('int32');
    column.words![column.values++] = value;
  }
  appendVarchar(value: string): void {
    const column = this.next('text');
    const entries = column.entries;
    if (entries !== undefined) {
      // The same text as the row before (a list's member name, for each of its elements): no lookup.
      if (value === column.lastText) {
        column.indices![column.values++] = column.lastIndex;
        return;
      }
      let index = entries.get(value);
      if (index === undefined) {
        entries.set(value, (index = entries.size));
        this.appendText(column, value);
      }
      column.lastText = value;
      column.lastIndex = index;
      column.indices![column.values++] = index;
      return;
    }
    column.values++;
    this.appendText(column, value);
  }

  /** A text's length and UTF-8 bytes at the end of the column's text buffer. */
  private appendText(column: ColumnBuffer, value: string): void {
    const length = value.length;
    // Room for the worst case: 3 UTF-8 bytes per UTF-16 unit, and the length.
    this.reserve(column, length * 3 + 4);
    const bytes = column.text!;
    const start = column.textBytes;
    let at = start + 4;
    let i = 0;
    for (; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0x80) break;
      bytes[at++] = code;
    }
    if (i < length) at += UTF8.encodeInto(value.slice(i), bytes.subarray(at)).written;
    const size = at - start - 4;
    bytes[start] = size;
    bytes[start + 1] = size >>> 8;
    bytes[start + 2] = size >>> 16;
    bytes[start + 3] = size >>> 24;
    column.textBytes = at;
    if (at >= ROW_GROUP_TEXT_BYTES) this.full = true;
  }
  /** A text given as its UTF-8 bytes (a name encoded once, written for many rows). */
  appendUtf8(value: Uint8Array): void {
    const column = this.next('text');
    if (column.entries !== undefined) throw new Error(`column ${column.spec.name} has a dictionary: give its texts as strings`);
    column.values++;
    this.reserve(column, value.length + 4);
    const bytes = column.text!;
    const start = column.textBytes;
    const size = value.length;
    bytes[start] = size;
    bytes[start + 1] = size >>> 8;
    bytes[start + 2] = size >>> 16;
    bytes[start + 3] = size >>> 24;
    bytes.set(value, start + 4);
    column.textBytes = start + 4 + size;
    if (column.textBytes >= ROW_GROUP_TEXT_BYTES) this.full = true;
  }

  endRow(): void {
    if (this.column !== this.columns.length) throw new Error(`a row of ${this.column} values for a table of ${this.columns.length} columns`);
    this.column = 0;
    if (++this.row === this.groupRows || this.full) this.flush();
  }

  /** Writes the rows so far as a row group. */
  private flush(): void {
    const rows = this.row;
    if (rows === 0) return;
    const start = this.offset;
    for (const column of this.columns) {
      const levels = column.defined === undefined ? undefined : definitionLevels(column.defined, rows);
      const offset = this.offset;
      const dictionary = column.entries !== undefined;
      let values: Uint8Array;
      if (dictionary) {
        const entries = column.text!.subarray(0, column.textBytes);
        this.write(dictionaryPageHeader(column.entries!.size, entries.length));
        this.write(entries);
        values = dictionaryIndices(column.indices!, column.values, column.entries!.size);
        column.entries!.clear();
        column.lastText = undefined;
      } else values = valueBytes(column);
      const dataOffset = this.offset;
      const size = (levels === undefined ? 0 : 4 + levels.length) + values.length;
      this.write(pageHeader(rows, size, dictionary ? RLE_DICTIONARY : PLAIN));
      if (levels !== undefined) {
        this.write(uint32(levels.length));
        this.write(levels);
      }
      this.write(values);
      column.chunks.push({ offset, dataOffset, dictionary, bytes: this.offset - offset, values: rows });
      column.values = 0;
      column.textBytes = 0;
      column.defined?.fill(0);
      column.hasNull = false;
    }
    this.groups.push({ rows, bytes: this.offset - start });
    this.total += rows;
    this.row = 0;
    this.full = false;
  }

  /** Writes the last row group and the footer, and closes the file. Rows written. */
  closeSync(): number {
    if (this.closed) return this.total;
    if (this.column !== 0) throw new Error('the last row is not complete');
    try {
      this.flush();
      const footer = fileMetaData(this.columns, this.groups, this.total);
      this.write(footer);
      this.write(uint32(footer.length));
      this.write(MAGIC);
    } finally {
      this.closed = true;
      closeSync(this.fd);
    }
    return this.total;
  }

  /** Closes the file without a footer (the caller removes it). */
  abort(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private write(bytes: Uint8Array): void {
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.offset + done);
    } catch (error) {
      // Node's message names the call, not the file (`ENOSPC: no space left on device, write`).
      throw new Error(`writing ${this.path} at byte ${this.offset + done}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    this.offset += bytes.length;
  }

  private reserve(column: ColumnBuffer, more: number): void {
    const text = column.text!;
    if (column.textBytes + more <= text.length) return;
    const grown = new Uint8Array(Math.max(text.length * 2, column.textBytes + more));
    grown.set(text.subarray(0, column.textBytes));
    column.text = grown;
  }

  toString(): string {
    return `ParquetRowWriter(${this.path})`;
  }
}

function valueBytes(column: ColumnBuffer): Uint8Array {
  if (column.words !== undefined) {
    const width = column.spec.type === 'int64' ? 8 : 4;
    // Typed arrays are little-endian on every platform Node runs on that we support.
    return new Uint8Array(column.words.buffer, column.words.byteOffset, column.values * width);
  }
  return column.text!.subarray(0, column.textBytes);
}

/**
 * A dictionary column's indices: the bit width (one byte), then RLE runs (the hybrid's run
 * header, a run's length << 1, and the index in whole bytes). Runs suit member names, which
 * repeat for every element of a list; an index that changes every row still costs only 2-3 bytes.
 */
function dictionaryIndices(indices: Int32Array, count: number, entries: number): Uint8Array {
  const width = Math.max(1, Math.ceil(Math.log2(Math.max(2, entries))));
  const bytesPerIndex = Math.ceil(width / 8);
  // Into a typed array sized for the worst case (a run per row: a 4-byte run header and the
  // index): pushing each byte onto an array took 1.1 s of a 10M export's link pass.
  const out = new Uint8Array(1 + count * (5 + bytesPerIndex));
  out[0] = width;
  let at = 1;
  for (let i = 0; i < count; ) {
    const index = indices[i]!;
    let j = i + 1;
    while (j < count && indices[j] === index) j++;
    let run = (j - i) * 2;
    while (run >= 0x80) {
      out[at++] = (run & 0x7f) | 0x80;
      run >>>= 7;
    }
    out[at++] = run;
    for (let b = 0; b < bytesPerIndex; b++) out[at++] = (index >>> (8 * b)) & 0xff;
    i = j;
  }
  return out.subarray(0, at);
}

/** Bit-packed runs of width 1: a header (groups of 8 << 1 | 1), then the bits, LSB first. */
function definitionLevels(defined: Uint8Array, rows: number): Uint8Array {
  const groups = Math.ceil(rows / 8);
  const header = varint((groups << 1) | 1);
  const out = new Uint8Array(header.length + groups);
  out.set(header);
  out.set(defined.subarray(0, groups), header.length);
  // Bits past the last row are zero (cleared after each row group).
  return out;
}

function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}
