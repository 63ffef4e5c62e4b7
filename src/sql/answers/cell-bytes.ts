import type { DuckDBDataChunk, DuckDBVector } from '@duckdb/node-api';

/**
 * How many bytes each row of a result chunk will take once converted, read from DuckDB's own
 * vectors before any value becomes a JavaScript string: a text's or blob's length is in the
 * first four bytes of its 16-byte slot, a list's elements are a range of its child vector. So a
 * 1.5 GB string is measured (and refused) without ever being copied out of DuckDB, where
 * `getItem` would try to make a string longer than V8 allows.
 *
 * The figure is what the answer will hold, give or take quoting: a text counts its UTF-8 bytes
 * plus 2, a fixed-size value 24 (the longest JSON text of a BIGINT or a timestamp), a list or
 * struct the sum of its parts plus 2 per element. The binding keeps the fields read here private
 * in its typings; where one is missing (a later binding), the cell is read and measured instead.
 */

const FIXED_CELL = 24;
const SLOT = 16;

interface SlotVector {
  readonly dataView?: DataView;
  readonly validity?: { itemValid(index: number): boolean };
}

interface ListLike {
  getEntryOffset(index: number): number;
  getEntryLength(index: number): number;
  readonly childVector: DuckDBVector;
  getItem(index: number): unknown;
}

/** Adds the size of every row's cells of `vector` (rows `0..count-1`) to `sizes`. */
function addSizes(vector: DuckDBVector, sizes: Float64Array, count: number, rowOf: (i: number) => number = (i) => i): void {
  const name = vector.constructor.name;
  switch (name) {
    case 'DuckDBVarCharVector':
    case 'DuckDBBlobVector':
    case 'DuckDBBitVector':
    case 'DuckDBBigNumVector':
    case 'DuckDBGeometryVector': {
      const slots = vector as unknown as SlotVector;
      const view = slots.dataView;
      if (view === undefined || slots.validity === undefined) break;
      for (let i = 0; i < count; i++) {
        // A blob's text escapes bytes as \xNN: up to four characters per byte.
        const length = slots.validity.itemValid(i) ? view.getUint32(i * SLOT, true) : 0;
        sizes[rowOf(i)]! += (name === 'DuckDBBlobVector' ? length * 4 : length) + 2;
      }
      return;
    }
    case 'DuckDBListVector': {
      const list = vector as unknown as ListLike;
      const child = list.childVector;
      const childCount = child.itemCount;
      const childSizes = new Float64Array(childCount);
      addSizes(child, childSizes, childCount);
      for (let i = 0; i < count; i++) {
        const from = list.getEntryOffset(i);
        const length = list.getEntryLength(i);
        let sum = 2;
        for (let j = from; j < from + length && j < childCount; j++) sum += childSizes[j]! + 2;
        sizes[rowOf(i)]! += sum;
      }
      return;
    }
    case 'DuckDBMapVector': {
      const inner = (vector as unknown as { listVector?: DuckDBVector }).listVector;
      if (inner === undefined) break;
      addSizes(inner, sizes, count, rowOf);
      return;
    }
    case 'DuckDBStructVector':
    case 'DuckDBUnionVector': {
      const struct = vector as unknown as { entryVectorAt?(index: number): DuckDBVector; type: { entryCount?: number } };
      const entries = struct.type.entryCount;
      if (struct.entryVectorAt === undefined || entries === undefined) break;
      for (let e = 0; e < entries; e++) addSizes(struct.entryVectorAt(e), sizes, count, rowOf);
      for (let i = 0; i < count; i++) sizes[rowOf(i)]! += 2 + entries * 4;
      return;
    }
    case 'DuckDBArrayVector': {
      const child = (vector as unknown as { childData?: DuckDBVector }).childData;
      if (child === undefined || count === 0) break;
      const per = child.itemCount / count;
      const childSizes = new Float64Array(child.itemCount);
      addSizes(child, childSizes, child.itemCount);
      for (let i = 0; i < count; i++) {
        let sum = 2;
        for (let j = i * per; j < (i + 1) * per; j++) sum += childSizes[j]! + 2;
        sizes[rowOf(i)]! += sum;
      }
      return;
    }
    default:
      if (/Decimal|Int|Float|Double|Boolean|Date|Time|Interval|UUID|Enum|Timestamp/.test(name)) {
        for (let i = 0; i < count; i++) sizes[rowOf(i)]! += FIXED_CELL;
        return;
      }
  }
  // Not a vector this file knows: read and measure (its values are small or already bounded).
  for (let i = 0; i < count; i++) sizes[rowOf(i)]! += String(vector.getItem(i) ?? '').length * 3 + 2;
}

/** Each row's size in bytes, once converted (see above). */
export function rowSizes(chunk: DuckDBDataChunk): Float64Array {
  const count = chunk.rowCount;
  const sizes = new Float64Array(count);
  for (let c = 0; c < chunk.columnCount; c++) addSizes(chunk.getColumnVector(c), sizes, count);
  return sizes;
}
