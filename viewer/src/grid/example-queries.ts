import { quoteIdentifier, type SqlTable } from './sql-api.js';

/** Example statements for this storage's tables: its largest type, a join through a reference, garbage. */
export function exampleQueries(tables: readonly SqlTable[]): { label: string; sql: string }[] {
  const types = tables.filter((t) => t.kind === 'type');
  const examples: { label: string; sql: string }[] = [];
  const first = types.find((t) => t.typeName !== null && !t.typeName.startsWith('java.') && !t.typeName.startsWith('[')) ?? types[0];
  if (first !== undefined) examples.push({ label: `Rows of ${first.alias ?? first.name}`, sql: `SELECT *\nFROM ${ref(first)}\nLIMIT 100` });
  for (const t of types) {
    const column = t.columns.find((c) => c.objectId && !c.name.startsWith('_'));
    if (column === undefined || t.typeName?.startsWith('java.') === true) continue;
    examples.push({
      label: `${t.alias ?? t.name} with the type of its ${column.name}`,
      sql: `SELECT t._oid, t.${quoteIdentifier(column.name)}, o.type_name\nFROM ${ref(t)} t\nJOIN _objects o ON o.oid = t.${quoteIdentifier(column.name)}\nLIMIT 100`,
    });
    break;
  }
  examples.push(
    { label: 'Objects and bytes by type', sql: 'SELECT type_name, count(*) AS objects, sum(bytes) AS bytes\nFROM _objects\nGROUP BY type_name\nORDER BY bytes DESC' },
    { label: 'Garbage by type', sql: 'SELECT type_name, count(*) AS unreachable, sum(bytes) AS bytes\nFROM _objects\nWHERE NOT reachable\nGROUP BY type_name\nORDER BY bytes DESC' },
    { label: 'Most referenced objects', sql: 'SELECT r.to_oid, o.type_name, count(*) AS referrers\nFROM _references r\nJOIN _objects o ON o.oid = r.to_oid\nGROUP BY ALL\nORDER BY referrers DESC\nLIMIT 20' },
  );
  return examples;
}

function ref(table: SqlTable): string {
  return table.alias ?? quoteIdentifier(table.name);
}
