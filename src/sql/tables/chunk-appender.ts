import type { DuckDBAppender, DuckDBConnection, DuckDBDataChunk, DuckDBType } from '@duckdb/node-api';
import { duckBindings, type DuckModule } from '../duck-module.js';

/**
 * Rows into a DuckDB table a data chunk (2,048 rows) at a time, with the call shape of DuckDB's
 * appender (`appendBigInt`, ..., `endRow`). Why: the appender costs one native call per value and
 * one per row, and the binding's vector wrappers keep validity as 64-bit BigInts (a BigInt made
 * per value); here every column is a typed array of our own, its validity bits 32 at a time, and
 * a chunk is handed over with one copy per column.
 *
 * Text: DuckDB keeps a string of at most 12 bytes inside its 16-byte slot (`duckdb_string_t` of
 * the C API: the length, then the bytes, zero-padded), so short ASCII texts are written into the
 * slots here; longer ones, and blobs, cost one native call each when the chunk is handed over.
 */

/** DuckDB's vector size: the most rows a chunk holds. */
const CAPACITY = 2048;

/** Longest text kept inside a string slot. */
const INLINE_BYTES = 12;

const UTF8 = new TextEncoder();

interface Column {
  /** Bytes of the column's values (typed views below share them). */
  readonly bytes: Uint8Array;
  readonly i64: BigInt64Array | undefined;
  /** A 64-bit column's values as 32-bit halves (little-endian: low, high), for values without a bigint. */
  readonly w32: Int32Array | undefined;
  readonly i32: Int32Array | undefined;
  readonly i16: Int16Array | undefined;
  readonly i8: Int8Array | undefined;
  readonly u8: Uint8Array | undefined;
  readonly f64: Float64Array | undefined;
  readonly f32: Float32Array | undefined;
  /** VARCHAR: the length word of each string slot. */
  readonly lengths: Uint32Array | undefined;
  readonly text: boolean;
  readonly blob: boolean;
  /** One bit per row, 1: a value. */
  readonly validity: Uint32Array;
  hasNull: boolean;
  /** Texts and blobs set natively at hand-over (rows and values, in pairs). */
  readonly outOfLine: (number | string | Uint8Array)[];
}

function makeColumn(type: DuckDBType, typeIds: DuckModule['DuckDBTypeId']): Column {
  const width = widthOf(type, typeIds);
  const buffer = new ArrayBuffer(width * CAPACITY);
  const id = type.typeId;
  const is64 = id === typeIds.BIGINT || id === typeIds.TIMESTAMP || id === typeIds.TIME;
  const text = id === typeIds.VARCHAR;
  return {
    bytes: new Uint8Array(buffer),
    i64: is64 ? new BigInt64Array(buffer) : undefined,
    w32: is64 ? new Int32Array(buffer) : undefined,
    i32: id === typeIds.INTEGER || id === typeIds.DATE ? new Int32Array(buffer) : undefined,
    i16: id === typeIds.SMALLINT ? new Int16Array(buffer) : undefined,
    i8: id === typeIds.TINYINT ? new Int8Array(buffer) : undefined,
    u8: id === typeIds.BOOLEAN ? new Uint8Array(buffer) : undefined,
    f64: id === typeIds.DOUBLE ? new Float64Array(buffer) : undefined,
    f32: id === typeIds.FLOAT ? new Float32Array(buffer) : undefined,
    lengths: text ? new Uint32Array(buffer) : undefined,
    text,
    blob: id === typeIds.BLOB,
    validity: new Uint32Array(CAPACITY / 32).fill(0xffffffff),
    hasNull: false,
    outOfLine: [],
  };
}

function widthOf(type: DuckDBType, typeIds: DuckModule['DuckDBTypeId']): number {
  switch (type.typeId) {
    case typeIds.BIGINT:
    case typeIds.TIMESTAMP:
    case typeIds.TIME:
    case typeIds.DOUBLE:
      return 8;
    case typeIds.INTEGER:
    case typeIds.DATE:
    case typeIds.FLOAT:
      return 4;
    case typeIds.SMALLINT:
      return 2;
    case typeIds.TINYINT:
    case typeIds.BOOLEAN:
      return 1;
    case typeIds.VARCHAR:
    case typeIds.BLOB:
      return 16;
    default:
      throw new Error(`a chunk column of type ${type.toString()} is not supported`);
  }
}

export class ChunkAppender {
  private readonly types: readonly DuckDBType[];
  private readonly columns: Column[];
  private row = 0;
  private column = 0;
  private chunk: DuckDBDataChunk | undefined;

  constructor(
    private readonly duck: DuckModule,
    private readonly appender: DuckDBAppender,
  ) {
    const types: DuckDBType[] = [];
    for (let i = 0; i < appender.columnCount; i++) types.push(appender.columnType(i));
    this.types = types;
    this.columns = types.map((type) => makeColumn(type, duck.DuckDBTypeId));
  }

  private next(): Column {
    const column = this.columns[this.column++];
    if (column === undefined) throw new Error(`a row of more than ${this.columns.length} values`);
    return column;
  }

  appendNull(): void {
    const column = this.next();
    column.validity[this.row >>> 5]! &= ~(1 << (this.row & 31));
    column.hasNull = true;
  }
  /**
   * NULL for every column of the row not appended yet: one row shape for a table and a narrower
   * copy of it (`_values` and the big numbers' staging table, table-build.ts, which has only its
   * first three columns).
   */
  appendNullsToEnd(): void {
    while (this.column < this.columns.length) this.appendNull();
  }
  appendBigInt(value: bigint): void {
    this.next().i64![this.row] = value;
  }
  /** A BIGINT given as 32-bit halves (an object id as the walk reads it): no bigint made. */
  appendBigIntHalves(low: number, high: number): void {
    const words = this.next().w32!;
    words[this.row * 2] = low;
    words[this.row * 2 + 1] = high;
  }
  /** A BIGINT from a non-negative safe integer (a length, an offset): no bigint made. */
  appendBigIntNumber(value: number): void {
    this.appendBigIntHalves(value >>> 0, Math.floor(value / 4294967296));
  }
  appendInteger(value: number): void {
    this.next().i32![this.row] = value;
  }
  appendSmallInt(value: number): void {
    this.next().i16![this.row] = value;
  }
  appendTinyInt(value: number): void {
    this.next().i8![this.row] = value;
  }
  appendFloat(value: number): void {
    this.next().f32![this.row] = value;
  }
  appendDouble(value: number): void {
    this.next().f64![this.row] = value;
  }
  appendBoolean(value: boolean): void {
    this.next().u8![this.row] = value ? 1 : 0;
  }
  /** Microseconds since 1970-01-01 00:00. */
  appendTimestamp(micros: bigint): void {
    this.next().i64![this.row] = micros;
  }
  /** Days since 1970-01-01. */
  appendDate(days: number): void {
    this.next().i32![this.row] = days;
  }
  /** Microseconds since midnight. */
  appendTime(micros: bigint): void {
    this.next().i64![this.row] = micros;
  }
  appendVarchar(value: string): void {
    const column = this.next();
    const length = value.length;
    if (length <= INLINE_BYTES) {
      const bytes = column.bytes;
      const at = this.row * 16 + 4;
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code >= 0x80) break;
        bytes[at + i] = code;
      }
      if (i === length) {
        column.lengths![this.row * 4] = length;
        return;
      }
      bytes.fill(0, at, at + i);
    }
    // The binding's string call ends a text at its first NUL character; such texts go as bytes.
    column.outOfLine.push(this.row, value.includes('\u0000') ? UTF8.encode(value) : value);
  }
  /**
   * A text of at most 12 ASCII characters given as the UTF-16 code units where a record lies
   * (`count` of them in `view` from `at`; the caller checked each is below 0x80), written into
   * its string slot without a string made.
   */
  appendAsciiUnits(view: DataView, at: number, count: number): void {
    if (count > INLINE_BYTES) throw new Error(`${count} characters do not fit a string slot`);
    const column = this.next();
    const bytes = column.bytes;
    const to = this.row * 16 + 4;
    for (let i = 0; i < count; i++) bytes[to + i] = view.getUint16(at + 2 * i, true);
    column.lengths![this.row * 4] = count;
  }
  /** Copies the bytes (they are handed over with the chunk, and may be a view of a read buffer). */
  appendBlob(value: Uint8Array): void {
    this.next().outOfLine.push(this.row, value.slice());
  }

  endRow(): void {
    if (this.column !== this.columns.length) throw new Error(`a row of ${this.column} values for a table of ${this.columns.length} columns`);
    this.column = 0;
    if (++this.row === CAPACITY) this.flush();
  }

  /** Hands the rows so far over to DuckDB. */
  flush(): void {
    const rows = this.row;
    if (rows === 0) return;
    const native = duckBindings();
    const chunk = (this.chunk ??= this.duck.DuckDBDataChunk.create(this.types));
    // DuckDB's appender copies a chunk into its own collection (texts too), so one chunk serves
    // every hand-over; reset, its vectors are as new (all valid, no texts).
    chunk.reset();
    for (let c = 0; c < this.columns.length; c++) {
      const column = this.columns[c]!;
      const vector = native.data_chunk_get_vector(chunk.chunk, c);
      const width = column.bytes.byteLength / CAPACITY;
      native.copy_data_to_vector(vector, 0, column.bytes.buffer as ArrayBuffer, 0, rows * width);
      const outOfLine = column.outOfLine;
      for (let i = 0; i < outOfLine.length; i += 2) {
        const value = outOfLine[i + 1]!;
        if (typeof value === 'string') native.vector_assign_string_element(vector, outOfLine[i] as number, value);
        else native.vector_assign_string_element_len(vector, outOfLine[i] as number, value as Uint8Array);
      }
      if (column.hasNull) {
        native.vector_ensure_validity_writable(vector);
        native.copy_data_to_vector_validity(vector, 0, column.validity.buffer as ArrayBuffer, 0, Math.ceil(rows / 64) * 8);
      }
      this.reset(column, rows, width);
    }
    chunk.rowCount = rows;
    this.appender.appendDataChunk(chunk);
    this.row = 0;
  }

  /** Ready for the next chunk: string slots and blob slots zeroed (padding must be zero), all rows valid. */
  private reset(column: Column, rows: number, width: number): void {
    if (column.text || column.blob) column.bytes.fill(0, 0, rows * width);
    if (column.hasNull) {
      column.validity.fill(0xffffffff);
      column.hasNull = false;
    }
    column.outOfLine.length = 0;
  }

  closeSync(): void {
    this.flush();
    this.appender.closeSync();
  }
}

/**
 * A pass's appends in one transaction: the rows committed once, not at each flush of an appender
 * (1M objects: the base pass 2.8 -> 2.5 s); rolled back when the pass fails.
 */
export async function inOneTransaction(connection: DuckDBConnection, work: () => Promise<void>): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    await work();
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
