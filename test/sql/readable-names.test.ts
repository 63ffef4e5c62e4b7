import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookUpType, readableTypeName, shortReadableTypeName } from '../../src/inspect/type-names.js';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { mcpClient } from '../helpers/serving/mcp-client.js';
import { registeredStorage, type RegisteredStorage } from '../helpers/serving/registered-storage.js';
import { graphEngines } from './graph-engines.js';

/**
 * Names for reading (issue 41, item 9): arrays as Java writes them (`int[]`, `String[]`, as the
 * viewer shows them) in SQL's `_objects.type_name`, the MCP tools' text and the CLI's reports,
 * while the names that identify stay (`"[I"` is still the table, and a view `"int[]"` beside it);
 * a type asked for by either name is found. A write through a simple-name view is refused as one through the full name.
 */

const ARRAYS = join(CONFORMANCE_DIR, 'storages', 'arrays');

describe('readable type names', () => {
  it('writes arrays as Java does, and leaves every other name as it is', () => {
    expect(readableTypeName('[I')).toBe('int[]');
    expect(readableTypeName('[[B')).toBe('byte[][]');
    expect(readableTypeName('[Ljava.lang.String;')).toBe('java.lang.String[]');
    expect(readableTypeName('[[Ljava.util.HashMap$Node;')).toBe('java.util.HashMap$Node[][]');
    expect(readableTypeName('java.util.HashMap$Node')).toBe('java.util.HashMap$Node');
    expect(shortReadableTypeName('[Ljava.lang.String;')).toBe('String[]');
    expect(shortReadableTypeName('[[C')).toBe('char[][]');
    expect(shortReadableTypeName('java.util.HashMap$Node')).toBe('HashMap$Node');
    expect(shortReadableTypeName('one.Box<java.lang.String>')).toBe('Box<java.lang.String>');
  });
});

describe('on the arrays corpus', () => {
  let registered: RegisteredStorage;
  let engine: SqlEngine;
  beforeAll(async () => {
    registered = await registeredStorage(ARRAYS);
    registered.registry.startAll();
    engine = new SqlEngine({ storage: registered.storage, graph: () => registered.context.graph.ready() });
  });
  afterAll(async () => {
    await engine.close();
    await registered.close();
  });

  it('SQL: _objects names arrays for reading; an array table keeps its name', async () => {
    const names = (await engine.query("SELECT DISTINCT type_name FROM _objects WHERE type_name LIKE '%[]' ORDER BY 1", { limit: 100 })).rows.map((r) => r[0]);
    const dictionaryArrays = [...new Set(registered.storage.dictionary.entries.filter((e) => e.typeName.startsWith('[')).map((e) => e.typeName))];
    expect(names.length).toBeGreaterThan(5);
    // Every array name in _objects is the readable form of a dictionary name, never the JVM one.
    for (const name of names) expect(dictionaryArrays.map(readableTypeName)).toContain(name);
    expect((await engine.query("SELECT count(*) FROM _objects WHERE type_name LIKE '[%'", { limit: 1 })).rows).toEqual([['0']]);
    const ints = await engine.query('SELECT count(*) FROM "[I"', { limit: 1 });
    expect(ints.rows[0]![0]).not.toBe('0');
    expect((await engine.query("SELECT count(*) FROM _objects WHERE type_name = 'int[]'", { limit: 1 })).rows).toEqual(ints.rows);
    const strings = await engine.query('SELECT count(*) FROM "[Ljava.lang.String;"', { limit: 1 });
    expect((await engine.query("SELECT count(*) FROM _objects WHERE type_name = 'java.lang.String[]'", { limit: 1 })).rows).toEqual(strings.rows);
    // No alias: clients write aliases unquoted.
    expect((await engine.schema()).tables.find((t) => t.name === '[I')?.alias).toBeNull();
  });

  it('SQL: an array table answers to its readable name too, filled when first named so', async () => {
    // A fresh engine: the first statement names the table only by its readable name.
    const fresh = new SqlEngine({ storage: registered.storage, graph: () => registered.registry.get('default')!.graph.ready() });
    try {
      const readable = await fresh.query('SELECT * FROM "int[]" ORDER BY _oid', { limit: 1000 });
      expect(readable.rows.length).toBeGreaterThan(5);
      expect((await fresh.query('SELECT * FROM "[I" ORDER BY _oid', { limit: 1000 })).rows).toEqual(readable.rows);
      const strings = await fresh.query('SELECT count(*) FROM "java.lang.String[]"', { limit: 1 });
      expect((await fresh.query('SELECT count(*) FROM "[Ljava.lang.String;"', { limit: 1 })).rows).toEqual(strings.rows);
      expect(strings.rows[0]![0]).not.toBe('0');
    } finally {
      await fresh.close();
    }
  });

  it('a type asked for by its readable name is found', () => {
    expect(lookUpType(registered.storage.dictionary, 'int[]')).toMatchObject({ typeName: '[I' });
    expect(lookUpType(registered.storage.dictionary, 'java.lang.String[]')).toMatchObject({ typeName: '[Ljava.lang.String;' });
    expect(lookUpType(registered.storage.dictionary, 'String[]')).toMatchObject({ typeName: '[Ljava.lang.String;' });
  });

  it('MCP: arrays are named for reading in the text, and found by those names', async () => {
    const mcp = await mcpClient(registered.registry);
    try {
      const call = mcp.call;
      const text = (r: CallToolResult): string => (r.content[0] as { text: string }).text;
      const listed = await call('list_instances', { type: 'int[]', limit: 1 });
      expect(listed.isError).toBeFalsy();
      expect(text(listed)).toMatch(/^\d+ instance\(s\) of int\[\] \[type id \d+\]/);
      const id = (listed.structuredContent as { objectIds: string[] }).objectIds[0]!;
      expect(text(await call('describe_object', { objectId: id }))).toMatch(new RegExp(`^int\\[\\] ${id} `));
      const types = text(await call('list_types', { limit: 200 }));
      expect(types).toContain('java.lang.String[] [type id');
      expect(types).not.toMatch(/^\[/m);
      // References to arrays name them short: `→ id String[]`.
      const strings = (await call('list_instances', { type: 'String[]', limit: 1 })).structuredContent as { objectIds: string[] };
      const referrers = (await call('referrers', { objectId: strings.objectIds[0]! })).structuredContent as { referrers: { objectId: string }[] };
      const holder = text(await call('describe_object', { objectId: referrers.referrers[0]!.objectId }));
      expect(holder).toContain(`→ ${strings.objectIds[0]} String[]`);
      expect(holder).not.toContain('[Ljava');
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

describe('the CLI', () => {
  it('analyze names arrays for reading in its text (and as they are in --json)', async () => {
    const run = async (args: string[]): Promise<string> => {
      const { code, stdout } = await runCliInProcess(args);
      expect(code, args.join(' ')).toBe(0);
      return stdout;
    };
    const text = await run(['analyze', ARRAYS, '--top', '100']);
    expect(text).toMatch(/^\s*int\[\]\s/m);
    expect(text).toMatch(/^\s*java\.lang\.String\[\]\s/m);
    expect(text).not.toMatch(/\[L[a-z]|^\s*\[I\s/m);
    const json = JSON.parse(await run(['analyze', ARRAYS, '--json', '--top', '100'])) as { types: { typeName: string }[] };
    expect(json.types.map((t) => t.typeName)).toContain('[I');
  }, 60_000);
});

describe('a write through a simple-name view', () => {
  const engineOf = graphEngines();
  it('is refused with the same message as one through the full name', async () => {
    const engine = engineOf();
    const refusal = async (sql: string): Promise<string> => {
      try {
        await engine.query(sql, { limit: 1 });
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`${sql} ran`);
    };
    const full = await refusal('DELETE FROM "conformance.bookstore.Book"');
    expect(full).toMatch(/read-only/);
    expect(await refusal('DELETE FROM Book')).toBe(full);
    expect(await refusal('UPDATE Book SET price = 0')).toBe(await refusal('UPDATE "conformance.bookstore.Book" SET price = 0'));
  });
});
