import type { FieldDescriptor, PrimitiveName, TypeDictionary, TypeEntry } from '../../format/type-dictionary.js';
import { simplifiedRenderer } from '../../inspect/simplified-value.js';

/**
 * The relational model: which SQL type a member's column gets from the member's declared type,
 * and the columns of a type's table (the union of its versions' members). Members declared as a
 * JDK value type (String, boxed primitives, big numbers, dates and times, enums) hold the value;
 * every other declared type holds the BIGINT object id of the referenced object.
 */

/** How the value of a value-type object is kept in `_values` (which typed column holds it). */
export type ValueKind = 'text' | 'tinyint' | 'smallint' | 'integer' | 'bigint' | 'boolean' | 'float' | 'double' | 'decimal' | 'timestamp' | 'date' | 'time';

/** The JDK value types with a typed SQL value; other simplified JDK types (Locale, URI...) are text. */
const VALUE_KINDS: ReadonlyMap<string, ValueKind> = new Map<string, ValueKind>([
  ['java.lang.String', 'text'],
  ['java.lang.Character', 'text'],
  ['java.lang.Byte', 'tinyint'],
  ['java.lang.Short', 'smallint'],
  ['java.lang.Integer', 'integer'],
  ['java.lang.Long', 'bigint'],
  ['java.lang.Boolean', 'boolean'],
  ['java.lang.Float', 'float'],
  ['java.lang.Double', 'double'],
  ['java.math.BigInteger', 'decimal'],
  ['java.math.BigDecimal', 'decimal'],
  ['java.util.Date', 'timestamp'],
  ['java.sql.Timestamp', 'timestamp'],
  ['java.sql.Date', 'timestamp'],
  ['java.time.Instant', 'timestamp'],
  ['java.time.LocalDateTime', 'timestamp'],
  ['java.time.LocalDate', 'date'],
  ['java.time.LocalTime', 'time'],
]);

/** java.time types that every generation stores reflectively but that are values all the same. */
const REFLECTIVE_VALUES = new Set(['java.time.Instant', 'java.time.LocalTime', 'java.time.LocalDate']);

/** SQL type of a primitive member (`char` as a one-character VARCHAR). */
export const PRIMITIVE_SQL: Readonly<Record<PrimitiveName, string>> = {
  boolean: 'BOOLEAN',
  byte: 'TINYINT',
  short: 'SMALLINT',
  char: 'VARCHAR',
  int: 'INTEGER',
  long: 'BIGINT',
  float: 'FLOAT',
  double: 'DOUBLE',
};

/** SQL type of a value kind (decimals are settled after the build, when their values are known). */
export const VALUE_SQL: Readonly<Record<ValueKind, string>> = {
  text: 'VARCHAR',
  tinyint: 'TINYINT',
  smallint: 'SMALLINT',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  boolean: 'BOOLEAN',
  float: 'FLOAT',
  double: 'DOUBLE',
  decimal: 'VARCHAR',
  timestamp: 'TIMESTAMP',
  date: 'DATE',
  time: 'TIME',
};

/** What a column holds. */
export type ColumnRole =
  | { readonly kind: 'primitive'; readonly type: PrimitiveName }
  | { readonly kind: 'chars' }
  | { readonly kind: 'bytes' }
  /** A `[list]` member: its element count here, its elements in `_elements`. */
  | { readonly kind: 'list' }
  | { readonly kind: 'reference' }
  | { readonly kind: 'value'; readonly value: ValueKind; readonly declared: string };

export interface TableColumn {
  /** Column name: the member's name, `Declaring#name` where two members share a name. */
  readonly name: string;
  readonly role: ColumnRole;
}

export interface TypeTablePlan {
  readonly typeName: string;
  /** Dictionary entries (versions) of the type that have instances, newest first. */
  readonly entries: readonly TypeEntry[];
  readonly columns: readonly TableColumn[];
  /** Per type id: for each column, the index of the entry's field that fills it, or -1. */
  readonly fieldOfColumn: ReadonlyMap<bigint, Int32Array>;
}

/** Whether objects of this entry are values (kept in `_values`, not as rows of their own table). */
export function valueKindOfEntry(entry: TypeEntry, dictionary: TypeDictionary): ValueKind | undefined {
  if (entry.typeName === 'java.time.LocalDateTime') return undefined; // a row with date and time ids, resolved in SQL
  if (REFLECTIVE_VALUES.has(entry.typeName)) return VALUE_KINDS.get(entry.typeName);
  if (simplifiedRenderer(entry, dictionary) === undefined) return undefined;
  return VALUE_KINDS.get(entry.typeName) ?? 'text';
}

/** The column role of a member, from its declared type. */
export function roleOf(field: FieldDescriptor, dictionary: TypeDictionary): ColumnRole {
  switch (field.kind) {
    case 'primitive':
      return { kind: 'primitive', type: field.typeName };
    case 'chars':
      return { kind: 'chars' };
    case 'bytes':
      return { kind: 'bytes' };
    case 'list':
      return { kind: 'list' };
    case 'reference': {
      const known = VALUE_KINDS.get(field.typeName);
      if (known !== undefined) return { kind: 'value', value: known, declared: field.typeName };
      const entry = dictionary.currentByName.get(field.typeName);
      if (entry !== undefined && entry.enumConstants.length > 0) return { kind: 'value', value: 'text', declared: field.typeName };
      if (entry !== undefined && simplifiedRenderer(entry, dictionary) !== undefined && !isAbstractName(field.typeName)) return { kind: 'value', value: 'text', declared: field.typeName };
      return { kind: 'reference' };
    }
  }
}

/** Value types no class can extend (final in Java): a member declared so holds only them. */
const FINAL_VALUE_TYPES = new Set([
  'java.lang.String',
  'java.lang.Character',
  'java.lang.Byte',
  'java.lang.Short',
  'java.lang.Integer',
  'java.lang.Long',
  'java.lang.Boolean',
  'java.lang.Float',
  'java.lang.Double',
  'java.time.Instant',
  'java.time.LocalDateTime',
  'java.time.LocalDate',
  'java.time.LocalTime',
]);

/**
 * The type ids of every stored object a value member declared `declared` can refer to, when the
 * dictionary says it exactly: a final value type's own versions, an enum's versions and its
 * constants' bodies (`Op$1`); undefined where a subclass may be stored too (`java.util.Date`
 * holds `java.sql.Timestamp`, BigDecimal is not final). The type tables join a value member to
 * these rows of `_values` only (and the JDK constants, which have no type id): an enum member
 * joined to all of `_values` built its hash table over every value object (10M objects: 4.5M rows
 * for six constants).
 */
export function valueTypeIdsOf(declared: string, dictionary: TypeDictionary): bigint[] | undefined {
  const current = dictionary.currentByName.get(declared);
  const isEnum = current !== undefined && current.enumConstants.length > 0;
  if (!FINAL_VALUE_TYPES.has(declared) && !isEnum) return undefined;
  const ids: bigint[] = [];
  for (const entry of dictionary.byId.values()) {
    if (entry.typeName === declared || (isEnum && entry.typeName.startsWith(`${declared}$`))) ids.push(entry.typeId);
  }
  return ids;
}

/** `Object` and interfaces hold ids even where the dictionary has a (simplified) entry of that name. */
function isAbstractName(name: string): boolean {
  return name === 'java.lang.Object';
}

/** The SQL type of a column as built (decimal columns may become DECIMAL after the build). */
export function sqlTypeOf(role: ColumnRole): string {
  switch (role.kind) {
    case 'primitive':
      return PRIMITIVE_SQL[role.type];
    case 'chars':
      return 'VARCHAR';
    case 'bytes':
      return 'BLOB';
    case 'list':
      return 'BIGINT';
    case 'reference':
      return 'BIGINT';
    case 'value':
      return VALUE_SQL[role.value];
  }
}

function roleKey(role: ColumnRole): string {
  return role.kind === 'primitive' ? `p:${role.type}` : role.kind === 'value' ? `v:${role.value}` : role.kind;
}

/** The table of a type name over its entries that have instances (given in any order). */
export function planTypeTable(typeName: string, entries: readonly TypeEntry[], dictionary: TypeDictionary): TypeTablePlan {
  const newestFirst = [...entries].sort((a, b) => (a.typeId < b.typeId ? 1 : a.typeId > b.typeId ? -1 : 0));
  const columns: TableColumn[] = [];
  const byKey = new Map<string, number>();
  const fieldOfColumn = new Map<bigint, Int32Array>();
  const perEntry: [bigint, number[]][] = [];
  for (const entry of newestFirst) {
    const counts = new Map<string, number>();
    for (const f of entry.fields) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
    const slots: number[] = [];
    entry.fields.forEach((field, index) => {
      const base = (counts.get(field.name) ?? 0) > 1 && field.qualifier !== undefined ? `${field.qualifier}#${field.name}` : field.name;
      const role = roleOf(field, dictionary);
      // Versions that declare a member differently get a column each (`name:kind`).
      let name = base;
      let key = `${base}\u0000${roleKey(role)}`;
      if (!byKey.has(key) && columns.some((c) => c.name === base)) name = `${base}:${roleKey(role)}`;
      key = `${name}\u0000${roleKey(role)}`;
      let column = byKey.get(key);
      if (column === undefined) {
        column = columns.length;
        columns.push({ name, role });
        byKey.set(key, column);
        byKey.set(`${base}\u0000${roleKey(role)}`, column);
      }
      slots[column] = index;
    });
    perEntry.push([entry.typeId, slots]);
  }
  for (const [typeId, slots] of perEntry) {
    const map = new Int32Array(columns.length).fill(-1);
    slots.forEach((field, column) => (map[column] = field));
    fieldOfColumn.set(typeId, map);
  }
  return { typeName, entries: newestFirst, columns, fieldOfColumn };
}

/**
 * A plan's members (column indexes) whose names are in `columns`; undefined `columns`: every
 * one. Every kind of member, not only values: a member left out is not read from the records
 * and its column is NULL (10M objects: books per tag names two of `gen.Book`'s nine members).
 */
export function membersNamed(plan: TypeTablePlan, columns: ReadonlySet<string> | undefined): Set<number> {
  const out = new Set<number>();
  plan.columns.forEach((column, i) => {
    if (columns === undefined || columns.has(column.name.toLowerCase())) out.add(i);
  });
  return out;
}

/** The simple name of a Java type (`com.acme.Order$Line` → `Order$Line`). */
export function simpleNameOf(typeName: string): string {
  return typeName.slice(typeName.lastIndexOf('.') + 1);
}

/** An identifier quoted for DuckDB. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
