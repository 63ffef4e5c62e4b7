import type { DuckDBConnection } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { checkStatement } from '../../src/sql/sandbox/statement-check.js';
import { memoryDuck } from '../sql/memory-duck.js';

/**
 * The statement check on parse trees of a DuckDB other than ours: a new expression class or node
 * kind is refused (an allow-list, like the functions'), and fields a later version may leave out
 * take their plain meaning. Today's DuckDB parses no statement into such a tree, so each tree here
 * is DuckDB's own parse of a real statement with one node changed (the connection given to the
 * check forwards to DuckDB and edits what `json_serialize_sql` answers).
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = { [key: string]: Json };

const duck = memoryDuck();
const allowed = { own: new Set(['book']), reserved: new Set<string>() };

/** A connection whose parse of a statement is DuckDB's, changed by `edit`. */
function parsedThen(edit: (parsed: Node) => void): DuckDBConnection {
  const connection = {
    async runAndReadAll(sql: string, values: string[]) {
      const reader = await duck.connection.runAndReadAll(sql, values);
      const parsed = JSON.parse(String(reader.getRows()[0]![0])) as Node;
      edit(parsed);
      return { getRows: () => [[JSON.stringify(parsed)]] };
    },
  };
  return connection as unknown as DuckDBConnection;
}

/** The first node of the tree `match` accepts (depth first). */
function nodeOf(tree: Json, match: (node: Node) => boolean): Node {
  const stack: Json[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) stack.push(...[...node].reverse());
    else if (node !== null && typeof node === 'object') {
      if (match(node)) return node;
      stack.push(...Object.values(node).reverse());
    }
  }
  throw new Error('no such node in the parse');
}

const columnRef = (node: Node): boolean => node.class === 'COLUMN_REF';
const baseTable = (node: Node): boolean => node.type === 'BASE_TABLE';

async function refusal(sql: string, edit: (parsed: Node) => void): Promise<unknown> {
  return checkStatement(parsedThen(edit), sql, allowed).then(
    () => 'allowed',
    (error: unknown) => error,
  );
}

describe('the statement check on parse trees DuckDB does not make today', () => {
  it('refuses an expression class it does not know, naming it, at its place', async () => {
    const error = await refusal('SELECT title FROM book', (parsed) => (nodeOf(parsed, columnRef).class = 'BOUND_COLUMN_REF'));
    expect(error).toMatchObject({ kind: 'refused', message: 'bound column ref expressions are not allowed here', position: 'SELECT '.length });
  });

  it('refuses a table reference kind it does not know, naming it, at its place', async () => {
    const error = await refusal('SELECT title FROM book', (parsed) => (nodeOf(parsed, baseTable).type = 'COLUMN_DATA'));
    expect(error).toMatchObject({ kind: 'refused', message: 'column data is not allowed here', position: 'SELECT title FROM '.length });
  });

  it('refuses a query node kind it does not know', async () => {
    const error = await refusal('SELECT title FROM book', (parsed) => (nodeOf(parsed, (node) => node.type === 'SELECT_NODE').type = 'INSERT_QUERY_NODE'));
    expect(error).toMatchObject({ kind: 'refused', message: 'insert query node is not allowed here', position: undefined });
  });

  it('refuses a set operation kind it does not know', async () => {
    const error = await refusal('SELECT 1 UNION SELECT 2', (parsed) => (nodeOf(parsed, (node) => node.type === 'SET_OPERATION_NODE').type = 'MERGE_NODE'));
    expect(error).toMatchObject({ kind: 'refused', message: 'merge node is not allowed here' });
  });

  it('gives the place of a refused node only where its location lies inside the statement', async () => {
    const at = async (location: Json | undefined): Promise<unknown> =>
      refusal('SELECT title FROM book', (parsed) => {
        const node = nodeOf(parsed, columnRef);
        node.class = 'NEW_REF';
        if (location === undefined) delete node.query_location;
        else node.query_location = location;
      });
    expect(await at(0)).toMatchObject({ kind: 'refused', position: 0 });
    expect(await at('SELECT title FROM book'.length)).toMatchObject({ kind: 'refused', position: 'SELECT title FROM book'.length });
    // No location, DuckDB's "none" (2^64 - 1, as JSON.parse reads it), one past the text's bytes.
    for (const location of [undefined, 18446744073709552000, -1, 1.5, 1000]) {
      const error = await at(location);
      expect(error, String(location)).toMatchObject({ kind: 'refused', message: 'new ref expressions are not allowed here' });
      expect((error as { position?: number }).position, String(location)).toBeUndefined();
    }
  });

  it('takes a table or function without schema or catalog fields as unqualified', async () => {
    const bare = (node: Node, ...fields: string[]): void => fields.forEach((field) => delete node[field]);
    const checked = await checkStatement(
      parsedThen((parsed) => {
        bare(nodeOf(parsed, baseTable), 'schema_name', 'catalog_name');
        bare(nodeOf(parsed, (node) => node.function_name === 'upper'), 'schema', 'catalog');
      }),
      'SELECT upper(title) FROM book',
      allowed,
    );
    expect({ tables: [...checked.tables], columns: [...checked.columns!] }).toEqual({ tables: ['book'], columns: ['title'] });
  });

  it('takes a table without an alias field as unaliased, a join without USING columns as using none', async () => {
    const checked = await checkStatement(
      parsedThen((parsed) => {
        delete nodeOf(parsed, baseTable).alias;
        delete nodeOf(parsed, (node) => node.type === 'JOIN').using_columns;
      }),
      'SELECT b.title FROM book b JOIN book c ON b.isbn = c.isbn',
      allowed,
    );
    expect({ tables: [...checked.tables], columns: [...checked.columns!].sort() }).toEqual({ tables: ['book'], columns: ['b', 'c', 'isbn', 'title'] });
  });

  it('tells a parse error without a message, and an answer without statements', async () => {
    expect(await refusal('SELECT 1', (parsed) => Object.assign(parsed, { error: true, error_type: 'parser', error_message: undefined }))).toMatchObject({
      kind: 'invalid',
      message: 'the statement does not parse',
    });
    expect(await refusal('SELECT 1', (parsed) => delete parsed.statements)).toMatchObject({ kind: 'invalid', message: 'no statement given' });
  });
});
