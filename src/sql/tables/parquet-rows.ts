import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * A Parquet file written row by row from typed arrays, for rows DuckDB then reads with its own
 * reader (an export's `_elements` and `_references`: tens of millions of rows that DuckDB's
 * appender takes one thread and most of the export's time to take in). Only what those rows need:
 * INT64, INT32 and UTF-8 text columns, each REQUIRED or OPTIONAL, PLAIN encoding (a text column
 * of few distinct values: a dictionary), no compression, one data page (v1) per column and row group. PLAIN INT64 / INT32 values are the little-endian
 * bytes of a typed array; a text is its length (4 bytes) and UTF-8 bytes; an optional column's
 * definition levels are bit-packed runs of width 1 (the RLE/bit-packing hybrid). The footer is
 * Thrift's compact protocol, written by the few functions below. The same append calls as the
 * chunk appender (`ChunkAppender`), one value per column in order, then `endRow`.
 */

export type ParquetColumnType = 'int64' | 'int32' | 'text';

export interface ParquetColumn {
  readonly name: string;
  readonly type: ParquetColumnType;
  /** OPTIONAL (NULLs allowed) or REQUIRED. */
  readonly nullable: boolean;
  /**
   * Texts of few distinct values (member names): a dictionary page per row group and the rows'
   * indices into it as runs (RLE_DICTIONARY), a few bytes a run instead of the text per row.
   */
  readonly dictionary?: boolean;
}

/** The rows of one row group, at most (DuckDB's own row group size: its reader's unit of parallel work). */
export const ROW_GROUP_ROWS = 122_880;

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
  /** Values present in this row group (not NULL). */
  values: number;
  /** One bit per row, set when present (optional columns). */
  readonly defined: Uint8Array | undefined;
  hasNull: boolean;
  /** Over every row group, for the footer. */
  readonly chunks: ChunkMeta[];
}

interface ChunkMeta {
  /** The column chunk's first page: its dictionary page, if it has one. */
  readonly offset: number;
  readonly dataOffset: number;
  readonly dictionary: boolean;
  readonly bytes: number;
  readonly values: number;
}

interface RowGroupMeta {
  readonly rows: number;
  readonly bytes: number;
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
      let index = entries.get(value);
      if (index === undefined) {
        entries.set(value, (index = entries.size));
        this.appendText(column, value);
      }
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
  }

  endRow(): void {
    if (this.column !== this.columns.length) throw new Error(`a row of ${this.column} values for a table of ${this.columns.length} columns`);
    this.column = 0;
    if (++this.row === this.groupRows) this.flush();
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
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.offset + done);
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
  const out: number[] = [width];
  for (let i = 0; i < count; ) {
    const index = indices[i]!;
    let j = i + 1;
    while (j < count && indices[j] === index) j++;
    let run = (j - i) * 2;
    while (run >= 0x80) {
      out.push((run & 0x7f) | 0x80);
      run >>>= 7;
    }
    out.push(run);
    for (let b = 0; b < bytesPerIndex; b++) out.push((index >>> (8 * b)) & 0xff);
    i = j;
  }
  return Uint8Array.from(out);
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

// --- Thrift compact protocol (the page headers and the footer) ---

const T_I32 = 5;
const T_I64 = 6;
const T_BINARY = 8;
const T_LIST = 9;
const T_STRUCT = 12;

/** Bytes of a Thrift struct, field by field (ids ascending). */
class Compact {
  private readonly bytes: number[] = [];
  private last: number[] = [0];

  private field(id: number, type: number): void {
    const delta = id - this.last[this.last.length - 1]!;
    if (delta > 0 && delta <= 15) this.bytes.push((delta << 4) | type);
    else {
      this.bytes.push(type);
      this.varint(zigzag(id));
    }
    this.last[this.last.length - 1] = id;
  }
  private varint(value: number): void {
    // Non-negative safe integers: what sizes, offsets and counts are.
    let v = value;
    while (v >= 0x80) {
      this.bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.bytes.push(v);
  }
  i32(id: number, value: number): this {
    this.field(id, T_I32);
    this.varint(zigzag(value));
    return this;
  }
  i64(id: number, value: number): this {
    this.field(id, T_I64);
    this.varint(zigzag(value));
    return this;
  }
  string(id: number, value: string): this {
    this.field(id, T_BINARY);
    this.binary(value);
    return this;
  }
  private binary(value: string): void {
    const bytes = UTF8.encode(value);
    this.varint(bytes.length);
    for (const b of bytes) this.bytes.push(b);
  }
  struct(id: number, body: (c: this) => void): this {
    this.field(id, T_STRUCT);
    this.last.push(0);
    body(this);
    this.bytes.push(0);
    this.last.pop();
    return this;
  }
  private listHeader(id: number, type: number, size: number): void {
    this.field(id, T_LIST);
    if (size < 15) this.bytes.push((size << 4) | type);
    else {
      this.bytes.push(0xf0 | type);
      this.varint(size);
    }
  }
  i32List(id: number, values: readonly number[]): this {
    this.listHeader(id, T_I32, values.length);
    for (const v of values) this.varint(zigzag(v));
    return this;
  }
  stringList(id: number, values: readonly string[]): this {
    this.listHeader(id, T_BINARY, values.length);
    for (const v of values) this.binary(v);
    return this;
  }
  structList<T>(id: number, items: readonly T[], body: (c: this, item: T) => void): this {
    this.listHeader(id, T_STRUCT, items.length);
    for (const item of items) {
      this.last.push(0);
      body(this, item);
      this.bytes.push(0);
      this.last.pop();
    }
    return this;
  }
  /** Fields written only when `yes`. */
  if(yes: boolean, body: (c: this) => void): this {
    if (yes) body(this);
    return this;
  }
  /** The struct's stop byte; the bytes. */
  end(): Uint8Array {
    this.bytes.push(0);
    return Uint8Array.from(this.bytes);
  }
}

function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function varint(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

// parquet.thrift: Type, Encoding, FieldRepetitionType, ConvertedType, CompressionCodec, PageType.
const TYPE = { int32: 1, int64: 2, text: 6 } as const;
const PLAIN = 0;
const RLE_DICTIONARY = 8;
const DICTIONARY_PAGE = 2;
const RLE = 3;
const REQUIRED = 0;
const OPTIONAL = 1;
const UTF8_CONVERTED = 0;
const UNCOMPRESSED = 0;
const DATA_PAGE = 0;

function pageHeader(rows: number, size: number, encoding: number): Uint8Array {
  return new Compact()
    .i32(1, DATA_PAGE)
    .i32(2, size)
    .i32(3, size)
    .struct(5, (c) => c.i32(1, rows).i32(2, encoding).i32(3, RLE).i32(4, RLE))
    .end();
}

function dictionaryPageHeader(entries: number, size: number): Uint8Array {
  return new Compact()
    .i32(1, DICTIONARY_PAGE)
    .i32(2, size)
    .i32(3, size)
    .struct(7, (c) => c.i32(1, entries).i32(2, PLAIN))
    .end();
}

function fileMetaData(columns: readonly ColumnBuffer[], groups: readonly RowGroupMeta[], rows: number): Uint8Array {
  const schema: (ParquetColumn | undefined)[] = [undefined, ...columns.map((c) => c.spec)];
  return new Compact()
    .i32(1, 1)
    .structList(2, schema, (c, spec) => {
      if (spec === undefined) c.string(4, 'schema').i32(5, columns.length);
      else {
        c.i32(1, TYPE[spec.type]).i32(3, spec.nullable ? OPTIONAL : REQUIRED).string(4, spec.name);
        if (spec.type === 'text') c.i32(6, UTF8_CONVERTED).struct(10, (l) => l.struct(1, () => undefined));
      }
    })
    .i64(3, rows)
    .structList(4, groups.map((g, i) => ({ g, i })), (c, { g, i }) => {
      c.structList(1, columns, (cc, column) => {
        const chunk = column.chunks[i]!;
        cc.i64(2, chunk.offset).struct(3, (m) =>
          m
            .i32(1, TYPE[column.spec.type])
            .i32List(2, [PLAIN, RLE, ...(chunk.dictionary ? [RLE_DICTIONARY] : [])])
            .stringList(3, [column.spec.name])
            .i32(4, UNCOMPRESSED)
            .i64(5, chunk.values)
            .i64(6, chunk.bytes)
            .i64(7, chunk.bytes)
            .i64(9, chunk.dataOffset)
            .if(chunk.dictionary, (d) => d.i64(11, chunk.offset)),
        );
      });
      c.i64(2, g.bytes).i64(3, g.rows);
    })
    .string(6, 'storage-inspector')
    .end();
}
