import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { GraphIndex } from '../../src/graph/model/graph-index.js';

/**
 * The comparison behind the SQL model tests: every row of every type table against the
 * `/api/v1/objects/{oid}` view of its object (every member, every value), `_elements` against
 * the views' list members, `_references` against the graph index, `_objects` against
 * `/api/v1/types` and `/api/v1/analysis`. Everything is asked through HTTP, as a client would.
 */

type Cell = null | boolean | number | string;
interface Answer {
  columns: { name: string; type: string }[];
  rows: Cell[][];
}
interface Ref {
  objectId: string;
  typeName: string | null;
  text?: string;
}
interface Member {
  name: string;
  declaringClass?: string;
  type: string;
  value?: unknown;
  count?: number;
  elements?: unknown[];
}
interface View {
  objectId: string;
  typeName: string;
  text?: string;
  members: Member[];
}

export interface Figures {
  tables: number;
  rows: number;
  cells: number;
  elements: number;
  references: number;
}

/**
 * `expect(actual, where).toBe(expected)`, asked only when `Object.is` does not already hold: the
 * comparison is the matcher's own (toBe is Object.is), and any difference still fails through
 * `expect` with the same message. Each `expect` call costs vitest about 11 µs of CPU (its state
 * copied per call; measured beside other work), and sql-model alone makes 216,204 of these
 * comparisons: some 2.4 s of its 40 s.
 */
function sameAs(actual: unknown, expected: unknown, where: string): void {
  if (!Object.is(actual, expected)) expect(actual, where).toBe(expected);
}

/** `expect(actual, where).toEqual(expected)`, skipped only where `Object.is` holds (toEqual holds then too). */
function equalTo(actual: unknown, expected: unknown, where: string): void {
  if (!Object.is(actual, expected)) expect(actual, where).toEqual(expected);
}

/** The whole result of a statement (NDJSON): its rows, and the column names its first line has. */
async function rowsOf(app: FastifyInstance, sql: string): Promise<{ names: string[] | undefined; rows: Cell[][] }> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/sql', payload: JSON.stringify({ sql }), headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' } });
  expect(response.statusCode, response.body).toBe(200);
  const lines = response.body === '' ? [] : response.body.trimEnd().split('\n');
  const records = lines.map((l) => JSON.parse(l) as Record<string, Cell>);
  return { names: records[0] === undefined ? undefined : Object.keys(records[0]), rows: records.map((r) => Object.values(r)) };
}

export async function sqlAll(app: FastifyInstance, sql: string): Promise<Answer> {
  const { rows } = await rowsOf(app, sql);
  // Columns from a JSON answer of the same statement.
  const head = await app.inject({ method: 'POST', url: '/api/v1/sql', payload: JSON.stringify({ sql, limit: 1 }), headers: { 'content-type': 'application/json' } });
  return { columns: (head.json() as Answer).columns, rows };
}

async function viewOf(app: FastifyInstance, oid: string): Promise<View> {
  const response = await app.inject({ url: `/api/v1/objects/${oid}?limit=10000` });
  sameAs(response.statusCode, 200, response.body);
  return response.json() as View;
}

function isRef(value: unknown): value is Ref {
  return value !== null && typeof value === 'object' && typeof (value as Ref).objectId === 'string';
}

function sameDecimal(a: string, b: string): boolean {
  const norm = (t: string): string => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
  return norm(a) === norm(b);
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

function isoYear(year: number): string {
  return year < 0 ? `-${pad(-year, 4)}` : year > 9999 ? `+${year}` : pad(year, 4);
}

/** What a value member's cell must hold, from the referenced object's view (its text, or its members). */
async function expectedValue(app: FastifyInstance, ref: Ref, type: string): Promise<Cell | undefined> {
  let text = ref.text;
  const member = async (view: View, name: string): Promise<unknown> => view.members.find((m) => m.name === name)?.value;
  if (text === undefined && ref.typeName !== null) {
    const view = await viewOf(app, ref.objectId);
    text = view.text;
    if (text === undefined) {
      if (ref.typeName === 'java.time.Instant') {
        const seconds = BigInt(String(await member(view, 'seconds')));
        const nanos = Number(await member(view, 'nanos'));
        if (seconds < -9_000_000_000_000n || seconds > 9_000_000_000_000n) return null;
        const ms = Number(seconds) * 1000 + Math.floor(nanos / 1e6);
        return new Date(ms).getUTCFullYear() > 9999 || new Date(ms).getUTCFullYear() < 0 ? undefined : new Date(ms).toISOString();
      }
      // Beyond DuckDB's DATE range (LocalDate.MIN, MAX): NULL, documented.
      if (ref.typeName === 'java.time.LocalDate' && Math.abs(Number(await member(view, 'year'))) > 5_000_000) return null;
      if (ref.typeName === 'java.time.LocalDate') return `${isoYear(Number(await member(view, 'year')))}-${pad(Number(await member(view, 'month')), 2)}-${pad(Number(await member(view, 'day')), 2)}`;
      if (ref.typeName === 'java.time.LocalTime') {
        const ms = Math.floor(Number(await member(view, 'nano')) / 1e6);
        return `${pad(Number(await member(view, 'hour')), 2)}:${pad(Number(await member(view, 'minute')), 2)}:${pad(Number(await member(view, 'second')), 2)}.${pad(ms, 3)}`;
      }
      if (ref.typeName === 'java.time.LocalDateTime') return undefined; // checked through its date and time members' own tables
      const name = await member(view, 'name');
      if (isRef(name)) return name.text ?? null; // an enum constant: its name
      return undefined;
    }
  }
  if (text === undefined) return undefined;
  if (text.endsWith('…')) return undefined; // the view shortens long texts: compared by prefix in the caller
  if (type === 'VARCHAR') return wellFormed(text);
  if (type === 'BOOLEAN') return text === 'true';
  if (type === 'BIGINT') return text;
  if (/^(TINYINT|SMALLINT|INTEGER|FLOAT|DOUBLE)$/.test(type)) return text === 'NaN' || /Infinity/.test(text) ? text : Number(text);
  if (type.startsWith('DECIMAL')) return text;
  if (type === 'TIMESTAMP') {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  return undefined;
}

/** DuckDB's VARCHAR is UTF-8: an unpaired surrogate becomes U+FFFD (documented). */
function wellFormed(text: string): string {
  // ... and a text that starts with U+FEFF loses it (the binding decodes with TextDecoder): documented.
  return (text as unknown as { toWellFormed(): string }).toWellFormed().replace(/^\ufeff/, '');
}

function blobBytes(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\\' && text[i + 1] === 'x') {
      out.push(parseInt(text.slice(i + 2, i + 4), 16));
      i += 4;
    } else {
      out.push(text.charCodeAt(i));
      i++;
    }
  }
  return out;
}

function compareCell(where: string, type: string, cell: Cell, value: unknown): void {
  if (value === null || value === undefined) {
    sameAs(cell, null, where);
    return;
  }
  if (isRef(value)) {
    sameAs(cell, value.objectId, where);
    return;
  }
  if ((type === 'FLOAT' || type === 'DOUBLE') && typeof value === 'string') {
    // NaN and the infinities by name in both; -0.0 (a Java text in the view) is 0 in JSON
    equalTo(cell, value === '-0.0' ? 0 : value, where);
    return;
  }
  if (type === 'FLOAT') {
    equalTo(typeof value === 'number' ? Math.fround(value) : value, typeof cell === 'number' ? Math.fround(cell) : cell, where);
    return;
  }
  if (type === 'DOUBLE' && typeof value === 'string') {
    // NaN, infinities and -0.0 are Java texts in the view
    sameAs(String(cell), value === '-0.0' ? '0' : value, where);
    return;
  }
  equalTo(cell, typeof value === 'string' ? wellFormed(value) : value, where);
}

export async function compareTablesWithViews(app: FastifyInstance, graph: GraphIndex): Promise<Figures> {
  const figures: Figures = { tables: 0, rows: 0, cells: 0, elements: 0, references: 0 };
  const schema = (await app.inject({ url: '/api/v1/sql/schema' })).json() as { tables: { name: string; kind: string; columns: { name: string; type: string; objectId: boolean }[] }[] };
  const elements = await rowsOf(app, 'SELECT owner, member, position, key_text, key_oid, value_text, value_oid FROM _elements ORDER BY owner, member, position');
  const byOwner = new Map<string, Cell[][]>();
  for (const row of elements.rows) {
    const key = `${row[0]}|${row[1]}`;
    let list = byOwner.get(key);
    if (list === undefined) byOwner.set(key, (list = []));
    list.push(row);
  }
  for (const table of schema.tables.filter((t) => t.kind === 'type')) {
    figures.tables++;
    // Names and types from the schema (not a second, JSON, run of the statement: a fifth of the
    // file's time); the NDJSON lines carry the names, which must be the schema's, in its order.
    const answer = await rowsOf(app, `SELECT * FROM "${table.name.replace(/"/g, '""')}"`);
    const names = table.columns.map((c) => c.name);
    const types = table.columns.map((c) => c.type);
    if (answer.names !== undefined) expect(answer.names, `${table.name} columns`).toEqual(names);
    for (const row of answer.rows) {
      figures.rows++;
      const oid = row[0] as string;
      const view = await viewOf(app, oid);
      sameAs(view.typeName, table.name, `${oid} type`);
      if (names[2] === 'value' && names[3] === 'text') {
        // a value type: its Java text, and the typed value
        if (view.text !== undefined) sameAs(row[3], wellFormed(view.text), `${oid} text`);
        continue;
      }
      const seen = new Set<string>();
      for (const m of view.members) {
        const key = m.declaringClass === undefined ? m.name : `${m.declaringClass}#${m.name}`;
        // Versions declaring the member differently have a column each (`name:kind`): the one filled.
        const candidates = names.map((n, i) => [n, i] as const).filter(([n]) => n === key || n.startsWith(`${key}:`));
        const c = (candidates.find(([, i]) => row[i] !== null) ?? candidates[0])?.[1] ?? -1;
        if (!(c > 1)) expect(c, `${table.name}.${key} has a column`).toBeGreaterThan(1);
        seen.add(names[c]!);
        const where = `${table.name} ${oid} ${key}`;
        const type = types[c]!;
        const cell = row[c]!;
        figures.cells++;
        if (m.type === '[list]') {
          sameAs(cell, String(m.count), where);
          const rows = byOwner.get(`${oid}|${names[c]}`) ?? [];
          sameAs(rows.length, m.count, where);
          m.elements!.forEach((element, i) => {
            figures.elements++;
            const [, , position, keyText, keyOid, valueText, valueOid] = rows[i]! as [Cell, Cell, Cell, Cell, Cell, Cell, Cell];
            sameAs(position, String(i), where);
            const parts = element !== null && typeof element === 'object' && !Array.isArray(element) && !isRef(element) ? Object.values(element as Record<string, unknown>) : undefined;
            const check = (part: unknown, text: Cell, id: Cell): void => {
              if (isRef(part)) {
                sameAs(id, part.objectId, `${where}[${i}]`);
                if (part.text !== undefined && !part.text.endsWith('…')) sameAs(text, part.text, `${where}[${i}] text`);
              } else if (part === null) {
                if (text !== null || id !== null) expect([text, id], `${where}[${i}]`).toEqual([null, null]);
              } else {
                sameAs(id, null, `${where}[${i}]`);
                // Primitives keep Java's text here (`0.0`), the view has JSON numbers.
                if (typeof part === 'number') sameAs(Number(text), part === 0 ? 0 : part, `${where}[${i}]`);
                else sameAs(text, typeof part === 'string' ? wellFormed(part) : Array.isArray(part) || typeof part === 'object' ? JSON.stringify(part) : String(part), `${where}[${i}]`);
              }
            };
            if (parts !== undefined && parts.length === 2) {
              check(parts[0], keyText, keyOid);
              check(parts[1], valueText, valueOid);
            } else if (parts === undefined) {
              if (keyText !== null || keyOid !== null) expect([keyText, keyOid], where).toEqual([null, null]);
              check(element, valueText, valueOid);
            }
          });
        } else if (m.type === '[byte]') {
          expect(blobBytes(String(cell)).map((b) => (b << 24) >> 24), where).toEqual(m.elements);
        } else if (table.columns[c]!.objectId || !isRef(m.value)) {
          compareCell(where, type, cell, m.value);
        } else {
          // a value member: the referenced value itself
          const expected = await expectedValue(app, m.value, type);
          if (expected === undefined && m.value.text?.endsWith('…') === true) expect(String(cell).startsWith(m.value.text.slice(0, -1)), where).toBe(true);
          else if (expected !== undefined) {
            if (type.startsWith('DECIMAL') && typeof expected === 'string') expect(sameDecimal(String(cell), expected), `${where}: ${cell} = ${expected}`).toBe(true);
            // Java's Date text has whole seconds; the column keeps the milliseconds.
            else if (type === 'TIMESTAMP' && typeof expected === 'string' && m.value.text !== undefined) expect(String(cell).slice(0, 19), where).toBe(expected.slice(0, 19));
            else equalTo(cell, expected === 0 ? 0 : expected, where); // -0 is 0 in JSON
          } else expect(cell, `${where} (a value)`).not.toBeUndefined();
        }
      }
      // Columns of other versions only: NULL here.
      names.forEach((n, i) => {
        if (i > 1 && !seen.has(n)) sameAs(row[i], null, `${table.name} ${oid} ${n} (not a member of its version)`);
      });
    }
  }

  // _references: the graph's edges between stored objects.
  const edges = new Set<string>();
  for (let v = 0; v < graph.nodeCount; v++) {
    if (!graph.isStored(v)) continue;
    graph.adjacency.forEachForward(v, (u) => {
      if (graph.isStored(u)) edges.add(`${graph.nodes.idOf(v)}>${graph.nodes.idOf(u)}`);
    });
  }
  const references = await rowsOf(app, 'SELECT DISTINCT from_oid, to_oid FROM _references WHERE to_oid IN (SELECT oid FROM _objects)');
  figures.references = references.rows.length;
  expect(new Set(references.rows.map((r) => `${r[0]}>${r[1]}`))).toEqual(edges);

  // _objects: the per-type instance counts and the reachable/unreachable figures of /api/v1.
  const types = (await app.inject({ url: '/api/v1/types?limit=10000' })).json() as { types: { typeId: string; instances: number; liveBytes: number; reachable: number }[] };
  const perType = await rowsOf(app, 'SELECT CAST(type_id AS VARCHAR), count(*), sum(bytes), count(*) FILTER (WHERE reachable) FROM _objects GROUP BY type_id');
  const sqlTypes = new Map(perType.rows.map((r) => [r[0] as string, [Number(r[1]), Number(r[2]), Number(r[3])]]));
  for (const t of types.types.filter((t) => t.instances > 0)) expect(sqlTypes.get(t.typeId), `type ${t.typeId}`).toEqual([t.instances, t.liveBytes, t.reachable]);
  const listed = new Set(types.types.filter((t) => t.instances > 0).map((t) => t.typeId));
  expect([...sqlTypes.keys()].filter((t) => !listed.has(t))).toEqual([]);
  const analysis = (await app.inject({ url: '/api/v1/analysis' })).json() as { reachable: { count: number; bytes: number }; unreachable: { count: number; bytes: number } };
  const parts = (await rowsOf(app, 'SELECT count(*) FILTER (WHERE reachable), sum(bytes) FILTER (WHERE reachable), count(*) FILTER (WHERE NOT reachable), coalesce(sum(bytes) FILTER (WHERE NOT reachable), 0) FROM _objects')).rows[0]!.map(Number);
  expect(parts).toEqual([analysis.reachable.count, analysis.reachable.bytes, analysis.unreachable.count, analysis.unreachable.bytes]);
  return figures;
}
