import { describe, expect, it } from 'vitest';
import { holdsObjectIds, objectIdColumns, type SqlTable } from '../../../viewer/src/grid/sql-types.js';
import { countSql, filterCondition, pageSql, positionInWhere, selectSql } from '../../../viewer/src/grid/table-sql.js';

/** The SQL a type's grid sends to /api/v1/sql: what is shown is what is asked for (and downloaded). */

const PERSON: SqlTable = {
  name: 'gen.Person',
  alias: 'Person',
  kind: 'type',
  typeName: 'gen.Person',
  typeIds: ['1000064'],
  columns: [
    { name: '_oid', type: 'BIGINT', objectId: true },
    { name: '_type_id', type: 'BIGINT', objectId: false },
    { name: 'name', type: 'VARCHAR', objectId: false },
    { name: 'age', type: 'INTEGER', objectId: false },
    { name: 'friend', type: 'BIGINT', objectId: true },
  ],
};

describe('the SQL of a type grid', () => {
  it('selects the visible columns in the order shown, all of them for the grid itself', () => {
    const view = { table: PERSON, state: { sort: 'age', desc: true, hidden: ['_type_id'] }, reachable: undefined };
    expect(selectSql(view)).toBe('SELECT "_oid", "name", "age", "friend" FROM "gen.Person" ORDER BY "age" DESC NULLS LAST, "_oid"');
    expect(pageSql(view, 400, 200)).toBe('SELECT "_oid", "_type_id", "name", "age", "friend" FROM "gen.Person" ORDER BY "age" DESC NULLS LAST, "_oid" LIMIT 200 OFFSET 400');
  });

  it('combines column filters, the WHERE box and unreachable-only, in the count as well', () => {
    const view = { table: PERSON, state: { filters: { name: "Gre'ta", age: '> 70' }, where: 'friend IS NOT NULL' }, reachable: false };
    const where = ` WHERE CAST("name" AS VARCHAR) ILIKE '%Gre''ta%' ESCAPE '\\' AND "age" > 70 AND (friend IS NOT NULL) AND "_oid" IN (SELECT oid FROM _objects WHERE reachable = false)`;
    expect(countSql(view)).toBe(`SELECT count(*) AS n FROM "gen.Person"${where}`);
    expect(selectSql(view)).toBe(`SELECT "_oid", "_type_id", "name", "age", "friend" FROM "gen.Person"${where} ORDER BY "_oid"`);
  });

  it("maps a position into the generated statement back into the user's WHERE text, nowhere else", () => {
    const view = { table: PERSON, state: { filters: { name: 'x' }, where: 'age >> 3' }, reachable: false };
    for (const statement of [countSql(view), selectSql(view), pageSql(view, 200, 200)]) {
      const at = statement.indexOf('age >> 3');
      expect(positionInWhere(view, statement, at + 4)).toBe(4);
      expect(positionInWhere(view, statement, at)).toBe(0);
      // In the column filter or the generated part: not in the user's text.
      expect(positionInWhere(view, statement, statement.indexOf('ILIKE'))).toBeUndefined();
      expect(positionInWhere(view, statement, statement.indexOf('reachable'))).toBeUndefined();
    }
    expect(positionInWhere({ ...view, state: {} }, countSql({ ...view, state: {} }), 10)).toBeUndefined();
  });

  it('reads a filter text as a comparison, a range, null or a contains, and ignores an unknown sort column', () => {
    expect(filterCondition('"age"', 'INTEGER', false, '75')).toBe('"age" = 75');
    expect(filterCondition('"age"', 'INTEGER', false, '<= 3.5')).toBe('"age" <= 3.5');
    expect(filterCondition('"age"', 'INTEGER', false, '10..20')).toBe('"age" BETWEEN 10 AND 20');
    expect(filterCondition('"friend"', 'BIGINT', true, 'null')).toBe('"friend" IS NULL');
    expect(filterCondition('"friend"', 'BIGINT', true, '!null')).toBe('"friend" IS NOT NULL');
    expect(filterCondition('"ok"', 'BOOLEAN', false, 'TRUE')).toBe('"ok" = true');
    // Not a number in a number column: no SQL is made of it, it is a text to look for.
    expect(filterCondition('"age"', 'INTEGER', false, '1; DROP')).toBe(`CAST("age" AS VARCHAR) ILIKE '%1; DROP%' ESCAPE '\\'`);
    expect(filterCondition('"name"', 'VARCHAR', false, '50%_x')).toBe(`CAST("name" AS VARCHAR) ILIKE '%50\\%\\_x%' ESCAPE '\\'`);
    expect(selectSql({ table: PERSON, state: { sort: 'nosuch' }, reachable: undefined })).toMatch(/ORDER BY "_oid"$/);
  });
});

describe('the object-id columns of a query result', () => {
  it('links a column name that holds ids in some table and plain integers in none', () => {
    const table = (name: string, columns: SqlTable['columns']): SqlTable => ({ name, alias: null, kind: 'type', typeName: name, typeIds: [], columns });
    const tables = [
      PERSON,
      table('java.util.Optional', [{ name: '_oid', type: 'BIGINT', objectId: true }, { name: 'value', type: 'BIGINT', objectId: true }]),
      table('java.lang.Long', [{ name: '_oid', type: 'BIGINT', objectId: true }, { name: 'value', type: 'BIGINT', objectId: false }]),
    ];
    expect([...objectIdColumns(tables)].sort()).toEqual(['_oid', 'friend']);
  });

  it('counts a result column as ids only when its values are ids (a count named like an id column is not)', () => {
    expect(holdsObjectIds(['1000000000000000028', null, '1000000000000000572'])).toBe(true);
    // JDK constants are ids too (9e18 + …).
    expect(holdsObjectIds(['9000000000000000021'])).toBe(true);
    // `count(*) AS friend`: small numbers, as strings (BIGINT) or numbers.
    expect(holdsObjectIds(['3', '12'])).toBe(false);
    expect(holdsObjectIds([3, 12])).toBe(false);
    // One value out of the range is enough: type ids, the exact boundaries.
    expect(holdsObjectIds(['1000000000000000028', '1000064'])).toBe(false);
    expect(holdsObjectIds(['1000000000000000000'])).toBe(false);
    expect(holdsObjectIds(['1000000000000000001', '9099999999999999999'])).toBe(true);
    expect(holdsObjectIds(['9100000000000000000'])).toBe(false);
    // Nothing to link.
    expect(holdsObjectIds([null, null])).toBe(false);
    expect(holdsObjectIds([])).toBe(false);
  });
});
