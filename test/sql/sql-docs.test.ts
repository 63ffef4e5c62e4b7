import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';

/** Every query of docs/sql.md's "Ten questions" runs on the bookstore storage and answers rows. */

const DOC = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'sql.md'), 'utf8');
const FROM = DOC.indexOf('## Ten questions');
// The section alone: up to the next heading of its level (later sections have queries of their own).
const NEXT = DOC.indexOf('\n## ', FROM + 1);
const QUESTIONS = DOC.slice(FROM, NEXT < 0 ? undefined : NEXT);
const QUERIES = [...QUESTIONS.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

let registered: RegisteredStorage;
let engine: SqlEngine;
beforeAll(async () => {
  registered = await registeredStorage(join(CONFORMANCE_DIR, 'storages', 'graph'));
  registered.registry.startAll();
  engine = new SqlEngine({ storage: registered.storage, graph: () => registered.context.graph.ready() });
});
afterAll(async () => {
  await engine.close();
  await registered.close();
});

describe('the queries of docs/sql.md', () => {
  it('are ten and one', () => expect(QUERIES).toHaveLength(11));

  it.each(QUERIES.map((q, i) => [i + 1, q] as const))('question %i runs', async (n, sql) => {
    const answer = await engine.query(sql, { limit: 100 });
    // The last one looks for missing objects: the bookstore has none.
    if (n === 11) expect(answer.rowCount).toBe(0);
    else expect(answer.rowCount).toBeGreaterThan(0);
  });

  it('answer what the data says', async () => {
    const reachable = await engine.query(QUERIES[8]!, { limit: 10 });
    expect(reachable.rows[0]).toEqual([0, '1']); // depth 0: the customer itself
    const authors = await engine.query(QUERIES[3]!, { limit: 10 });
    const byHand = await engine.query(`SELECT count(*) FROM Book WHERE author = (SELECT _oid FROM Author WHERE name = '${authors.rows[0]![1]}' AND firstName = '${authors.rows[0]![0]}')`, { limit: 1 });
    expect(authors.rows[0]![2]).toBe(byHand.rows[0]![0]);
  });
});
