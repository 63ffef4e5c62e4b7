import type { GraphIndex } from '../graph/model/graph-index.js';
import type { ChunkAppender } from './chunk-appender.js';

/**
 * `_objects`: a row per current object, made from the headers the base pass walks (id, type id,
 * file, offset, length), never from a decoded record, and without a bigint or an object per row
 * (at 1M objects the base pass went from 1.57 to 1.2 s). They keep the file and type as codes
 * (a text longer than 12 bytes costs a native call, see chunk-appender.ts) until `FILL_OBJECTS`.
 */

export const OBJECT_TABLES = `
CREATE TABLE __objects (oid BIGINT, type_id BIGINT, reachable BOOLEAN, bytes BIGINT, channel INTEGER, file INTEGER, "offset" BIGINT);
CREATE TABLE __files (code INTEGER, name VARCHAR);
CREATE TABLE __types (type_id BIGINT, type_name VARCHAR);
CREATE TABLE _objects (oid BIGINT, type_id BIGINT, type_name VARCHAR, reachable BOOLEAN, bytes BIGINT, channel INTEGER, file VARCHAR, "offset" BIGINT);
`;

/**
 * `_objects` with its names, made by the first statement that names it (`namesObjectsTable`):
 * writing the rows a second time costs 1.7 s at 10M objects, which a statement about a type
 * table need not wait for. (A view joining the names when read made `GROUP BY type_name` 10×
 * slower: 123 ms instead of 13 at 10M.)
 */
export const FILL_OBJECTS = `
INSERT INTO _objects SELECT o.oid, o.type_id, t.type_name, o.reachable, o.bytes, o.channel, f.name, o."offset" FROM __objects o LEFT JOIN __types t ON t.type_id = o.type_id LEFT JOIN __files f ON f.code = o.file;
DROP TABLE __objects;
DROP TABLE __files;
DROP TABLE __types;
`;

/** Whether a statement may read `_objects` (a name built at run time may be any). */
export function namesObjectsTable(sql: string): boolean {
  return /_objects|query_table|\bquery\s*\(/i.test(sql);
}

export class ObjectRows {
  count = 0;
  /** File path → code, in the order the pass met them. */
  readonly files = new Map<string, number>();
  private lastFile = '';
  private lastCode = -1;
  private readonly channelMask: number;

  constructor(
    readonly rows: ChunkAppender,
    private readonly graph: GraphIndex | undefined,
    channelCount: number,
  ) {
    // Channel counts are powers of two; the channel is the id's low bits (ids.ts channelOf).
    this.channelMask = channelCount - 1;
  }

  add(idLow: number, idHigh: number, typeLow: number, typeHigh: number, file: string, offset: number, length: number): void {
    this.count++;
    const rows = this.rows;
    rows.appendBigIntHalves(idLow, idHigh);
    rows.appendBigIntHalves(typeLow, typeHigh);
    const graph = this.graph;
    const node = graph === undefined || idHigh < 0 ? -1 : graph.nodes.nodeOf(idLow | 0, idHigh | 0);
    if (node < 0) rows.appendNull();
    else rows.appendBoolean(graph!.isReachable(node));
    rows.appendBigIntNumber(length);
    rows.appendInteger(idLow & this.channelMask);
    if (file !== this.lastFile) {
      let code = this.files.get(file);
      if (code === undefined) this.files.set(file, (code = this.files.size));
      this.lastFile = file;
      this.lastCode = code;
    }
    rows.appendInteger(this.lastCode);
    rows.appendBigIntNumber(offset);
    rows.endRow();
  }
}
