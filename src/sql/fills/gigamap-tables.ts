import type { DuckDBConnection } from '@duckdb/node-api';
import { gigaMapIds } from '../../gigamap/find-gigamaps.js';
import { GIGAMAP_TABLES, gigaMapEntityRows, gigaMapIndexRows } from '../../gigamap/sql-rows.js';
import type { GraphIndex } from '../../graph/model/graph-index.js';
import type { Storage } from '../../storage/storage.js';
import { ChunkAppender } from '../tables/chunk-appender.js';
import { quoteIdent } from '../tables/column-model.js';
import type { DuckModule } from '../duck-module.js';

/**
 * `_gigamap_entities` and `_gigamap_index`: every GigaMap's entities and index keys, from the
 * column batches of gigamap/sql-rows.ts (the bitmaps as stored, not the entities). Empty tables
 * where the storage has no GigaMap, or where no graph index tells which objects are GigaMaps.
 */
export async function buildGigaMapTables(duck: DuckModule, connection: DuckDBConnection, storage: Storage, graph: GraphIndex | undefined): Promise<void> {
  for (const table of GIGAMAP_TABLES) {
    await connection.run(`CREATE TABLE ${table.name} (${table.columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')})`);
  }
  const maps = graph === undefined ? [] : gigaMapIds(graph);
  if (maps.length === 0) return;
  const entities = new ChunkAppender(duck, await connection.createAppender('_gigamap_entities'));
  try {
    for await (const batch of gigaMapEntityRows(storage, maps)) {
      for (let i = 0; i < batch.length; i++) {
        entities.appendBigInt(batch.gigamap);
        entities.appendBigInt(batch.entityId[i]!);
        entities.appendBigInt(batch.oid[i]!);
        entities.endRow();
      }
    }
  } finally {
    entities.closeSync();
  }
  const index = new ChunkAppender(duck, await connection.createAppender('_gigamap_index'));
  try {
    for await (const batch of gigaMapIndexRows(storage, maps)) {
      let row = 0;
      batch.keys.forEach((key, k) => {
        for (let r = 0; r < batch.keyRuns[k]!; r++, row++) {
          index.appendBigInt(batch.gigamap);
          index.appendVarchar(batch.indexName);
          index.appendVarchar(key);
          index.appendBigInt(batch.entityId[row]!);
          index.endRow();
        }
      });
    }
  } finally {
    index.closeSync();
  }
}
