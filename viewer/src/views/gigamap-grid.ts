import { errorMessage } from '../model/api.js';
import { displayTypeName } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import { groupDigits } from '../ui/format.js';
import { DataGrid } from '../grid/data-grid.js';
import { quoteIdentifier, type SqlTable, type SqlValue } from '../grid/sql-api.js';
import { objectSummaries } from '../grid/summaries.js';
import type { ViewHost } from '../shell/view-host.js';

/**
 * A page of a GigaMap's entities as a grid of their values: the entities are rows of their own
 * type's SQL table, so the page listed by `/api/v1/objects/{oid}/gigamap/entities` is read from
 * that table by `_oid IN (…)` and shown in entity-id order with the entity id as first column.
 * A page holding entities of several types shows the most frequent type and says how many of
 * the others it leaves out.
 */

export interface GigaMapEntity {
  readonly entityId: number;
  readonly objectId: string;
  readonly typeName: string | null;
}

export class GigaMapGrid {
  readonly element: HTMLElement;
  private readonly status: HTMLElement;
  private readonly grid: DataGrid;
  private generation = 0;

  constructor(private readonly app: ViewHost) {
    this.grid = new DataGrid({
      label: 'GigaMap entities',
      sortable: false,
      filterable: false,
      state: {},
      onState: () => undefined,
      objectHref: (oid) => this.app.href({ view: 'data', instance: undefined, oid, path: [] }),
      openObject: (oid) => this.app.navigate({ view: 'data', instance: undefined, oid, path: [] }),
      summaries: (ids) => objectSummaries(this.app, ids),
    });
    this.status = h('p', { class: 'hint gigamap-grid-status', role: 'status' });
    this.element = h('div', { class: 'gigamap-grid' }, this.status, this.grid.element);
  }

  /** Shows these entities (one page, in entity-id order) as rows of their type's table. */
  async show(entities: readonly GigaMapEntity[]): Promise<void> {
    const generation = ++this.generation;
    this.grid.element.hidden = true;
    clear(this.status, 'Loading the values…');
    try {
      const typeName = mostFrequentType(entities);
      if (typeName === undefined) {
        clear(this.status, 'No entities on this page.');
        return;
      }
      const table = (await this.app.sql.schema()).find((t: SqlTable) => t.kind === 'type' && t.typeName === typeName);
      if (generation !== this.generation) return;
      if (table === undefined) {
        clear(this.status, `The server has no SQL table of ${displayTypeName(typeName)}.`);
        return;
      }
      const shown = entities.filter((e) => e.typeName === typeName);
      const sql = `SELECT * FROM ${quoteIdentifier(table.name)} WHERE "_oid" IN (${shown.map((e) => e.objectId).join(', ')})`;
      const answer = await this.app.sql.query(sql, shown.length);
      if (generation !== this.generation) return;
      const oidColumn = answer.columns.findIndex((c) => c.name === '_oid');
      const byOid = new Map<string, readonly SqlValue[]>(answer.rows.map((row) => [String(row[oidColumn]), row]));
      const rows = shown.map((e) => [e.entityId, ...(byOid.get(e.objectId) ?? answer.columns.map((c) => (c.name === '_oid' ? e.objectId : null)))]);
      const ids = new Map(table.columns.map((c) => [c.name, c.objectId]));
      this.grid.setSource(
        {
          columns: [{ name: 'entity_id', type: 'BIGINT', objectId: false }, ...answer.columns.map((c) => ({ name: c.name, type: c.type, objectId: ids.get(c.name) === true }))],
          total: rows.length,
          rows: async (offset, limit) => rows.slice(offset, offset + limit),
        },
        // The type id is the same on every row of one table: the member values get the room.
        { hidden: ['_type_id'] },
      );
      this.grid.element.hidden = false;
      const others = entities.length - shown.length;
      clear(this.status, `${groupDigits(shown.length)} entities of ${displayTypeName(typeName)}, rows of its table`, others > 0 ? ` (${groupDigits(others)} of other types not shown)` : '', '.');
    } catch (error) {
      if (generation === this.generation) clear(this.status, h('span', { class: 'v-error' }, `Cannot read the values: ${errorMessage(error)}`));
    }
  }
}

function mostFrequentType(entities: readonly GigaMapEntity[]): string | undefined {
  const counts = new Map<string, number>();
  for (const e of entities) if (e.typeName !== null) counts.set(e.typeName, (counts.get(e.typeName) ?? 0) + 1);
  let best: string | undefined;
  for (const [name, n] of counts) if (best === undefined || n > counts.get(best)!) best = name;
  return best;
}
