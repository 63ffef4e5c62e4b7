import type { ViewHost } from '../shell/view-host.js';
import { quoteIdentifier } from './sql-api.js';

/**
 * "Open as table" for a collection: the SQL of its elements (`_elements`) in order, joined to the
 * table of the elements' type when they are all of one type (one column per member), else with
 * each element's type name. Asked of the SQL engine first: which types the elements have.
 */
export async function collectionTableSql(app: ViewHost, oid: string): Promise<string> {
  if (!/^[0-9]{1,19}$/.test(oid)) throw new Error(`not an object id: ${oid}`);
  const types = await app.sql.query(`SELECT o.type_name FROM _elements e JOIN _objects o ON o.oid = e.value_oid WHERE e.owner = ${oid} GROUP BY o.type_name LIMIT 2`, 2);
  const tables = await app.sql.schema();
  const only = types.rows.length === 1 ? String(types.rows[0]?.[0] ?? '') : undefined;
  const table = only === undefined ? undefined : tables.find((t) => t.kind === 'type' && t.typeName === only);
  if (table !== undefined) {
    return `SELECT e.position, t.*\nFROM _elements e\nJOIN ${table.alias ?? quoteIdentifier(table.name)} t ON t._oid = e.value_oid\nWHERE e.owner = ${oid}\nORDER BY e.position`;
  }
  return `SELECT e.position, e.key_text, e.key_oid, e.value_text, e.value_oid, o.type_name\nFROM _elements e\nLEFT JOIN _objects o ON o.oid = e.value_oid\nWHERE e.owner = ${oid}\nORDER BY e.position`;
}

